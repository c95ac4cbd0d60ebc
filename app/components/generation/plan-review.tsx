import { Form, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { buttonClass } from '~/components/ui/button';
import type { PlanView } from '~/services/generation/plans.server';

// The plans of a plan-first run, for their owner to review: each plan is one form (title, meta
// description, the sections with their level, heading and intent, the FAQ questions). Its buttons
// move, remove or add a section, save, write, re-plan or drop it; every button posts the whole form,
// so an edit is never lost, and the page comes back to the same plan (JavaScript on or off). Under
// it, what research found: the sources the post will cite, or why there are none. The chosen plans,
// or all of them, are written by the form at the end.

const input =
  'block w-full min-w-0 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 focus:border-indigo-600 focus:outline-none focus:ring-2 focus:ring-indigo-600/30';
const small = buttonClass('secondary', 'sm');
const WRITE_FORM = 'write-chosen';

export function PlanReview({ runId, plans, credits }: { runId: string; plans: PlanView[]; credits: number }) {
  const { t } = useTranslation('workspace');
  const planned = plans.filter((p) => p.status === 'planned');
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  return (
    <section aria-labelledby="plans-title" className="flex flex-col gap-4" data-testid="plan-review">
      <div>
        <h2 id="plans-title" className="text-xl font-bold text-slate-900">
          {t('plans.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('plans.cost', { count: credits })}</p>
      </div>
      <ol className="flex flex-col gap-4">
        {plans.map((p) => (
          <li key={p.id} id={`plan-${p.id}`} data-testid="plan" data-status={p.status} className="scroll-mt-4">
            {p.status === 'planned' && p.plan ? (
              <PlanForm view={p} busy={busy} />
            ) : (
              <div className="rounded-xl bg-white p-4 text-sm ring-1 ring-slate-200">
                <p className="break-words font-semibold text-slate-900">{p.plan?.title ?? p.prompt}</p>
                <p className="mt-1 text-slate-700" data-testid="plan-state">
                  {t(`plans.state.${p.status === 'processing' ? p.phase : p.status}`)}
                </p>
              </div>
            )}
          </li>
        ))}
      </ol>
      {planned.length > 0 ? (
        <Form method="post" id={WRITE_FORM} className="flex flex-wrap gap-3 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200">
          <input type="hidden" name="intent" value="plans-write" />
          <input type="hidden" name="runId" value={runId} />
          <button type="submit" name="which" value="chosen" className={buttonClass('secondary')} disabled={busy}>
            {t('plans.writeChosen')}
          </button>
          <button type="submit" name="which" value="all" className={buttonClass('primary')} disabled={busy}>
            {t('plans.writeAll', { count: planned.length })}
          </button>
        </Form>
      ) : null}
    </section>
  );
}

function PlanForm({ view, busy }: { view: PlanView; busy: boolean }) {
  const { t } = useTranslation('workspace');
  const plan = view.plan!;
  const id = (name: string) => `plan-${view.id}-${name}`;
  return (
    // Keyed by the stored plan: after a move or a save the fields show what was stored.
    <Form
      method="post"
      key={JSON.stringify(plan)}
      className="flex flex-col gap-3 rounded-xl bg-white p-4 ring-1 ring-slate-200"
      aria-label={t('plans.formLabel', { topic: view.prompt })}
    >
      <input type="hidden" name="intent" value="plan" />
      <input type="hidden" name="resultId" value={view.id} />
      {/* Enter in a field saves (the form's first button is its default). */}
      <button type="submit" name="op" value="save" className="sr-only" tabIndex={-1} aria-hidden="true" />
      <p className="break-words text-xs text-slate-600">{view.prompt}</p>
      <label className="flex items-center gap-2 text-sm font-medium text-slate-800">
        <input type="checkbox" name="resultIds" value={view.id} form={WRITE_FORM} className="size-4" />
        {t('plans.choose')}
      </label>
      <div>
        <label htmlFor={id('title')} className="text-sm font-semibold text-slate-900">
          {t('plans.fields.title')}
        </label>
        <input id={id('title')} name="title" defaultValue={plan.title} required maxLength={300} className={input} />
      </div>
      <fieldset className="flex flex-col gap-2">
        <legend className="text-sm font-semibold text-slate-900">{t('plans.fields.sections')}</legend>
        <ol className="flex flex-col gap-2">
          {plan.sections.map((s, i) => (
            <li key={i} className={`flex flex-col gap-2 rounded-lg p-2 ring-1 ring-slate-200 ${s.level === 3 ? 'ml-4' : ''}`}>
              <div className="flex gap-2">
                <select
                  name={`sections[${i}].level`}
                  defaultValue={String(s.level)}
                  aria-label={t('plans.fields.level', { n: i + 1 })}
                  className="rounded-lg border border-slate-300 bg-white px-2 py-2 text-sm"
                >
                  <option value="2">H2</option>
                  <option value="3">H3</option>
                </select>
                <input
                  name={`sections[${i}].heading`}
                  defaultValue={s.heading}
                  required
                  maxLength={200}
                  aria-label={t('plans.fields.heading', { n: i + 1 })}
                  className={input}
                />
              </div>
              <input
                name={`sections[${i}].intent`}
                defaultValue={s.intent}
                maxLength={500}
                aria-label={t('plans.fields.intent', { n: i + 1 })}
                placeholder={t('plans.fields.intentPlaceholder')}
                className={input}
              />
              <div className="flex flex-wrap gap-2">
                <button type="submit" name="op" value={`up:${i}`} className={small} disabled={busy || i === 0}>
                  {t('plans.up')}
                </button>
                <button type="submit" name="op" value={`down:${i}`} className={small} disabled={busy || i === plan.sections.length - 1}>
                  {t('plans.down')}
                </button>
                <button
                  type="submit"
                  name="op"
                  value={`remove:${i}`}
                  className={small}
                  disabled={busy || plan.sections.length === 1}
                  aria-label={t('plans.removeNamed', { heading: s.heading })}
                >
                  {t('plans.remove')}
                </button>
              </div>
            </li>
          ))}
        </ol>
        <button type="submit" name="op" value="add" className={`${small} self-start`} disabled={busy}>
          {t('plans.add')}
        </button>
      </fieldset>
      {plan.faq.length > 0 ? (
        <div>
          <label htmlFor={id('faq')} className="text-sm font-semibold text-slate-900">
            {t('plans.fields.faq')}
          </label>
          <textarea
            id={id('faq')}
            name="faq"
            defaultValue={plan.faq.join('\n')}
            rows={Math.min(6, plan.faq.length + 1)}
            className={input}
          />
        </div>
      ) : null}
      <div>
        <label htmlFor={id('meta')} className="text-sm font-semibold text-slate-900">
          {t('plans.fields.meta')}
        </label>
        <textarea id={id('meta')} name="metaDescription" defaultValue={plan.metaDescription} rows={2} maxLength={320} className={input} />
      </div>
      {view.research ? <ResearchFound research={view.research} /> : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" name="op" value="write" className={buttonClass('primary', 'sm')} disabled={busy}>
          {t('plans.write')}
        </button>
        <button type="submit" name="op" value="save" className={small} disabled={busy}>
          {t('plans.save')}
        </button>
        <button type="submit" name="op" value="replan" className={small} disabled={busy} formNoValidate>
          {t('plans.replan')}
        </button>
        <button type="submit" name="op" value="drop" className={small} disabled={busy} formNoValidate>
          {t('plans.drop')}
        </button>
      </div>
    </Form>
  );
}

function ResearchFound({ research }: { research: NonNullable<PlanView['research']> }) {
  const { t } = useTranslation('workspace');
  if (research.status !== 'found' || research.sources.length === 0) {
    return (
      <p className="text-sm text-slate-700" data-testid="plan-research" data-status={research.status}>
        {t(research.status === 'failed' ? 'plans.researchFailed' : 'plans.researchEmpty')}
      </p>
    );
  }
  return (
    <div className="text-sm" data-testid="plan-research" data-status={research.status}>
      <p className="text-slate-700">{t('plans.sources', { count: research.sources.length })}</p>
      <ul className="mt-1 list-disc pl-5">
        {research.sources.map((s) => (
          <li key={s.url} className="break-words">
            <a href={s.url} rel="noopener noreferrer nofollow" className="inline-block py-0.5 text-indigo-700 underline">
              {s.title}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
