import { Form } from '@remix-run/react';
import { useState } from 'react';
import { findModel, fixCost } from '~/catalogue';
import { buttonClass } from '~/components/ui/button';
import { fixFailureText } from '~/utils/generation-errors';
import { fixesOffered, type FixOffer } from '~/utils/quality/fixes';
import type { ResultView } from './result-view';
import { useResultRows, type ResultRows } from './result-rows';
import { FIX_PARAM, listHrefWith, RESULTS_ACTION } from './urls';

// A completed text post's one-click fixes: what its quality report offers (expand when short, each
// missing section) and Regenerate, each button saying its price. A button opens its confirm step
// with the price again and the Confirm form; a running fix shows instead of the buttons, and the
// last one's outcome (a failure costs nothing) below them.
//
// The confirm step is built only for the fix being confirmed, not for every offer of every row (its
// form was about a quarter of the results page's markup and render time). With the page's script a
// button is a <details> whose form renders when it opens; without it, a link to the same list with
// `fix=<id>:<kind>[:<section>]`, which renders that confirm step open.

const fixKey = (id: string, offer: FixOffer) => [id, offer.kind, ...(offer.section ? [offer.section] : [])].join(':');

/** The list at `returnTo` with this fix's confirm step open, scrolled to it. */
export function fixHref(returnTo: string, id: string, offer: FixOffer): string {
  const key = fixKey(id, offer);
  return listHrefWith(returnTo, FIX_PARAM, key, key.replaceAll(':', '-'));
}

const smallButton = buttonClass('secondary', 'sm');

const CONFIRM = { regenerate: 'fixes.confirmRegenerate', expand: 'fixes.confirmExpand', add_section: 'fixes.confirmAddSection' } as const;

export function FixActions({ result }: { result: ResultView }) {
  const rows = useResultRows();
  const { t } = rows;
  const model = findModel(result.model);
  if (!model) return null;
  const fix = result.fix ?? null;
  const credits = (count: number) => t('fixes.credits', { count });
  const sectionName = (section: string | null | undefined) => (section ? t(`quality.sections.${section}`) : '');
  const what = fix ? t(`fixes.what.${fix.kind}`, { section: sectionName(fix.section) }) : '';
  const running = fix?.status === 'processing';
  return (
    <div className="flex flex-col gap-1.5 text-sm" data-testid="result-fixes">
      {fix && running ? (
        <p className="text-slate-700" data-testid="fix-running" aria-live="polite">
          {t('fixes.running', { what, cost: credits(fix.credits) })}{' '}
          <a href={rows.returnTo} className="font-semibold text-indigo-700 underline">
            {t('fixes.refresh')}
          </a>
        </p>
      ) : null}
      {fix?.status === 'failed' ? (
        <p className="text-red-700" data-testid="fix-failed" data-error-code={fix.errorCode ?? undefined}>
          {t('fixes.failed', { what, reason: fixFailureText(t, fix) })}
        </p>
      ) : null}
      {fix?.status === 'completed' ? (
        <p className="text-emerald-800" data-testid="fix-done">
          {t('fixes.done', { what, cost: credits(fix.credits) })}
        </p>
      ) : null}
      {running ? null : (
        <div role="group" aria-label={t('fixes.label')} className="flex flex-wrap items-start gap-2">
          {fixesOffered(result.quality).map((offer) => (
            <FixButton
              key={`${offer.kind}:${offer.section ?? ''}`}
              result={result}
              offer={offer}
              cost={credits(fixCost(offer.kind, model))}
              credits={fixCost(offer.kind, model)}
              section={sectionName(offer.section)}
              rows={rows}
            />
          ))}
        </div>
      )}
    </div>
  );
}

function FixButton({
  result,
  offer,
  cost,
  credits,
  section,
  rows: { t, hydrated, returnTo, askedFix, busy },
}: {
  result: ResultView;
  offer: FixOffer;
  cost: string;
  credits: number;
  section: string;
  rows: ResultRows;
}) {
  const asked = askedFix === fixKey(result.id, offer);
  const [open, setOpen] = useState(asked);
  const label = offer.kind === 'add_section' ? t('fixes.addSection', { section, cost }) : t(`fixes.${offer.kind}`, { cost });
  if (!hydrated && !asked)
    return (
      <a
        href={fixHref(returnTo, result.id, offer)}
        className={smallButton}
        data-testid="fix"
        data-kind={offer.kind}
        data-section={offer.section}
      >
        {label}
      </a>
    );
  return (
    <details
      id={fixKey(result.id, offer).replaceAll(':', '-')}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
      data-testid="fix"
      data-kind={offer.kind}
      data-section={offer.section}
    >
      <summary className={`${smallButton} cursor-pointer list-none [&::-webkit-details-marker]:hidden`}>{label}</summary>
      {open ? (
        <div className="mt-2 max-w-md rounded-lg bg-slate-50 p-3 text-slate-700 ring-1 ring-slate-200">
          <p>{t(CONFIRM[offer.kind], { cost, section })}</p>
          <Form method="post" action={RESULTS_ACTION} className="mt-2">
            <input type="hidden" name="intent" value="fix" />
            <input type="hidden" name="id" value={result.id} />
            <input type="hidden" name="kind" value={offer.kind} />
            {offer.section ? <input type="hidden" name="section" value={offer.section} /> : null}
            {/* The post as seen and the price shown: a post changed since, or a price moved, is refused. */}
            <input type="hidden" name="basis" value={result.updatedAt} />
            <input type="hidden" name="cost" value={credits} />
            <input type="hidden" name="returnTo" value={returnTo} />
            <button type="submit" className={buttonClass('primary', 'sm')} disabled={busy(result.id, 'fix')}>
              {t('fixes.confirm', { cost })}
            </button>
          </Form>
        </div>
      ) : null}
    </details>
  );
}
