import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { isPro } from '~/catalogue';
import { AppShell } from '~/components/app-shell';
import { ResultTopic } from '~/components/result-topic';
import { BackLink, FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { useHydrated } from '~/components/generation/use-hydrated';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { ErrorList } from '~/components/ui/field';
import { BulkExistingPosts } from '~/components/wordpress/bulk-existing';
import { BulkScheduleFields } from '~/components/wordpress/bulk-schedule-fields';
import { SitePicker } from '~/components/wordpress/site-picker';
import { TaxonomyFields } from '~/components/wordpress/taxonomy-fields';
import { ChooseTermsButton, PostTermsReview, type PostTermsReviewData } from '~/components/wordpress/post-terms-review';
import { DripFields, DripPreview, type DripPreviewData, type DripValues } from '~/components/wordpress/drip-fields';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { bulkSelection } from '~/services/wordpress/bulk.server';
import { existingPublications } from '~/services/wordpress/publications.server';
import type { Publication } from '~/services/wordpress/publication-record.server';
import { refreshSiteTimeZone, siteCategories } from '~/services/wordpress/sites.server';
import { getDripSchedule } from '~/services/wordpress/drip.server';
import { timeOf } from '~/utils/drip-plan';
import { dripSchema } from '~/utils/drip-schemas';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { chooseBulkTerms, publishBulk, publishDrip } from '~/http/wordpress-bulk.server';
import { rootT } from '~/utils/meta';
import { readerTimeZone } from '~/http/time-zone.server';
import { BULK_MAX, bulkPublishSchema } from '~/utils/wordpress-schemas';
import { instantToZoned } from '~/utils/zoned-time';
import { POST_STATUSES } from '~/utils/publication-state';

// Bulk publish: the results chosen on the Results or WordPress tab (?ids=, repeated or
// comma-separated), to one site (?site= switches it and reloads its categories), published now or
// spread over a schedule: the first at a date and time in the user's time zone, then one every N
// hours or days, or dripped under the site's drip schedule (N a day inside a daily
// window on chosen weekdays; posting it renders the planned dates, a second post confirms them).
// The model may choose each post's categories and tags among the site's own (intent=choose-terms),
// shown in the form for review before anything is published.
// A plain GET/POST page, so it works without JavaScript; with it, the form is checked in the
// browser (the same schema) and only the chosen mode's fields show.

function idsOf(url: URL): string[] {
  const ids = url.searchParams
    .getAll('ids')
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set(ids)].slice(0, BULK_MAX);
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  if (!isPro(user.subscriptionStatus)) throw redirect('/app?tab=wordpress');
  const url = new URL(request.url);
  const selection = await bulkSelection(userId, idsOf(url));
  if (!selection) throw new Response('Not found', { status: 404 });
  const { sites, results, skipped } = selection;
  const chosen = sites.find((s) => String(s.id) === url.searchParams.get('site')) ?? sites.find((s) => s.isDefault) ?? sites[0] ?? null;
  let categories: { id: number; name: string }[] = [];
  let categoriesFailed = false;
  let siteZone = chosen?.timeZone ?? null;
  let existing = new Map<string, Publication>();
  const schedule = chosen ? await getDripSchedule(userId, chosen.id) : null;
  if (chosen && results.length) {
    [categories, siteZone, existing] = await Promise.all([
      siteCategories(userId, chosen.id).catch(() => {
        categoriesFailed = true;
        return [];
      }),
      refreshSiteTimeZone(userId, chosen.id).catch(() => siteZone),
      existingPublications(
        userId,
        results.map((r) => r.id),
        chosen.id,
      ),
    ]);
  }
  const timeZone = await readerTimeZone(request);
  const now = instantToZoned(new Date(), timeZone);
  // The drip fields start from the site's saved rules, else a working week's 09:00-17:00.
  const dripZone = schedule?.timeZone ?? siteZone ?? timeZone;
  const drip: DripValues = {
    startDate: instantToZoned(new Date(), dripZone).date,
    perDay: String(schedule?.perDay ?? 3),
    windowStart: timeOf(schedule?.windowStart ?? 9 * 60),
    windowEnd: timeOf(schedule?.windowEnd ?? 17 * 60),
    weekdays: schedule?.weekdays ?? [1, 2, 3, 4, 5],
    spread: schedule?.spread ?? 'even',
    timeZone: dripZone,
  };
  return json(
    {
      user,
      account,
      results,
      skipped,
      sites: sites.map((s) => ({ id: s.id, siteName: s.siteName })),
      siteId: chosen?.id ?? null,
      site: chosen ? { siteName: chosen.siteName, timeZone: siteZone } : null,
      // Selected results already on the chosen site (published or waiting): the user chooses.
      existing: results.flatMap((r) => {
        const p = existing.get(r.id);
        return p ? [{ resultId: r.id, title: r.title, status: p.status, link: p.link }] : [];
      }),
      nowIso: new Date().toISOString(),
      categories,
      categoriesFailed,
      timeZone,
      now,
      drip,
      dripPaused: Boolean(schedule?.pausedAt),
    },
    { headers: privatePageHeaders },
  );
}

/** The drip mode's posts (its own fields and rules, see publishDrip). */
const dripMode = z.object({ mode: z.literal('drip') });

/** Now or spread (publishBulk), or the drip mode's plan and confirmation (publishDrip). */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  const args = { userId: user.id, formData, t, timeZone: await readerTimeZone(request, user) };
  if (formData.get('intent') === 'choose-terms') return chooseBulkTerms(args);
  return parseWithZod(formData, { schema: dripMode }).status === 'success' ? publishDrip(args) : publishBulk(args);
}

export default function PublishBulk() {
  const {
    user,
    account,
    results,
    skipped,
    sites,
    siteId,
    categories,
    categoriesFailed,
    timeZone,
    now,
    site,
    nowIso,
    existing,
    drip,
    dripPaused,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation('wordpress');
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting';
  const hydrated = useHydrated();
  const [form, fields] = useForm({
    id: 'bulk-publish',
    lastResult: actionData?.result as SubmissionResult<string[]> | undefined,
    defaultValue: { mode: 'now', every: '1', unit: 'days', startDate: now.date, startTime: now.time, featured: 'on' },
    onValidate: ({ formData }) => {
      const bulk = () => parseWithZod(formData, { schema: bulkPublishSchema(t as Translate, timeZone) });
      // The drip fields' own rules: their errors land on the same field names (the value is not used here).
      if (parseWithZod(formData, { schema: dripMode }).status === 'success')
        return parseWithZod(formData, { schema: dripSchema(t as Translate) }) as unknown as ReturnType<typeof bulk>;
      return bulk();
    },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
  });
  const preview = (actionData && 'preview' in actionData ? actionData.preview : null) as DripPreviewData | null;
  const termChoices = (actionData && 'termChoices' in actionData ? actionData.termChoices : null) as PostTermsReviewData | null;
  const initialMode = fields.mode.initialValue === 'schedule' || fields.mode.initialValue === 'drip' ? fields.mode.initialValue : 'now';
  const [mode, setMode] = useState<'now' | 'schedule' | 'drip'>(initialMode);
  // After a preview (or a refused drip form) the fields show what was posted.
  const posted = (name: string) => (actionData?.result?.initialValue as Record<string, unknown> | undefined)?.[name];
  const dripValues: DripValues = {
    startDate: (posted('dripStartDate') as string) ?? drip.startDate,
    perDay: (posted('perDay') as string) ?? drip.perDay,
    windowStart: (posted('windowStart') as string) ?? drip.windowStart,
    windowEnd: (posted('windowEnd') as string) ?? drip.windowEnd,
    weekdays: posted('weekdays') !== undefined ? ([posted('weekdays')].flat() as string[]).map(Number) : drip.weekdays,
    spread: posted('spread') === 'random' ? 'random' : posted('spread') === 'even' ? 'even' : drip.spread,
    timeZone: drip.timeZone,
  };
  const errorsOf = (name: string) => (actionData?.result?.error as Record<string, string[] | undefined> | undefined)?.[name];

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="mx-auto max-w-3xl">
        <BackLink to="/app?tab=results">{t('bulk.back')}</BackLink>
        <h1 className="mt-3 text-2xl font-bold tracking-tight text-slate-900">{t('bulk.title')}</h1>
        <p className="mt-1 text-sm text-slate-700" data-testid="bulk-selected">
          {t('bulk.selected', { count: results.length })}
        </p>
        {skipped > 0 ? <p className="mt-1 text-sm text-amber-800">{t('bulk.skipped', { count: skipped })}</p> : null}

        {results.length === 0 ? (
          <div className="mt-6 rounded-2xl bg-white p-6 text-center shadow-sm ring-1 ring-slate-200">
            <p className="text-slate-700">{t('bulk.noneSelected')}</p>
            <ButtonLink to="/app?tab=results" className="mt-4">
              {t('bulk.back')}
            </ButtonLink>
          </div>
        ) : sites.length === 0 ? (
          <div className="mt-6 rounded-2xl bg-white p-6 text-center shadow-sm ring-1 ring-slate-200">
            <p className="text-slate-700">{t('publish.noSites')}</p>
            <ButtonLink to="/wordpress?add=1" className="mt-4">
              {t('sites.add')}
            </ButtonLink>
          </div>
        ) : (
          <>
            <details className="mt-4 rounded-xl bg-white px-4 py-2 ring-1 ring-slate-200">
              <summary className="cursor-pointer text-sm font-medium text-slate-800">{t('bulk.resultsLabel')}</summary>
              <ol className="mt-2 list-decimal pl-6 text-sm text-slate-700" data-testid="bulk-results">
                {results.map((r) => (
                  <li key={r.id} className="break-words">
                    {r.title}
                    <ResultTopic title={r.title} topic={r.topic} keyword={r.keyword} />
                  </li>
                ))}
              </ol>
            </details>

            <SitePicker sites={sites} siteId={siteId}>
              {results.map((r) => (
                <input key={r.id} type="hidden" name="ids" value={r.id} />
              ))}
            </SitePicker>

            <Form
              method="post"
              {...getFormProps(form)}
              className="mt-4 flex flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
            >
              <FormAlert id={form.errorId} title={t('publish.failed')} errors={form.errors} />
              <ErrorList errors={[...(fields.resultIds.errors ?? []), ...(fields.siteId.errors ?? [])]} />
              {results.map((r) => (
                <input key={r.id} type="hidden" name="resultIds" value={r.id} />
              ))}
              <input type="hidden" name="siteId" value={siteId ?? ''} />
              <input type="hidden" name="timeZone" value={timeZone} />
              {existing.length > 0 ? <BulkExistingPosts existing={existing} siteName={site?.siteName ?? ''} /> : null}

              <fieldset>
                <legend className="text-sm font-medium text-slate-800">{t('bulk.when')}</legend>
                <div className="mt-2 flex flex-col gap-2">
                  {(['now', 'schedule', 'drip'] as const).map((m) => (
                    <label key={m} className="flex items-center gap-2 text-sm text-slate-800">
                      <input
                        type="radio"
                        name={fields.mode.name}
                        value={m}
                        defaultChecked={mode === m}
                        onChange={() => setMode(m)}
                        className="size-4"
                      />
                      {m === 'now' ? t('bulk.now') : m === 'schedule' ? t('bulk.spread') : t('drip.mode')}
                    </label>
                  ))}
                </div>
              </fieldset>

              <BulkScheduleFields
                fields={fields}
                minDate={now.date}
                timeZone={timeZone}
                site={site}
                now={nowIso}
                hidden={hydrated && mode !== 'schedule'}
              />

              {dripPaused ? <p className="text-sm text-amber-800">{t('drip.pausedNote')}</p> : null}
              <DripFields
                values={dripValues}
                minDate={drip.startDate}
                hidden={hydrated && mode !== 'drip'}
                errors={{
                  dripStartDate: errorsOf('dripStartDate'),
                  perDay: errorsOf('perDay'),
                  windowStart: errorsOf('windowStart'),
                  windowEnd: errorsOf('windowEnd'),
                  weekdays: errorsOf('weekdays'),
                }}
              />

              <fieldset data-testid="bulk-post-status">
                <legend className="text-sm font-medium text-slate-800">{t('bulk.postStatus')}</legend>
                <div className="mt-2 flex flex-wrap gap-4">
                  {POST_STATUSES.map((status) => (
                    <label key={status} className="flex items-center gap-2 text-sm text-slate-800">
                      <input
                        type="radio"
                        name="postStatus"
                        value={status}
                        defaultChecked={(posted('postStatus') ?? 'publish') === status}
                        className="size-4"
                      />
                      {status === 'publish'
                        ? t('bulk.postStatusPublish')
                        : status === 'draft'
                          ? t('bulk.postStatusDraft')
                          : t('bulk.postStatusPending')}
                    </label>
                  ))}
                </div>
              </fieldset>

              <TaxonomyFields categories={categories} categoriesFailed={categoriesFailed} tagsName={fields.tags.name} />
              {termChoices ? <PostTermsReview review={termChoices} /> : null}
              <label className="flex items-center gap-2 text-sm text-slate-800">
                <input type="checkbox" name={fields.featured.name} defaultChecked className="size-4" />
                {t('bulk.featured')}
              </label>
              <label className="flex items-center gap-2 text-sm text-slate-800">
                <input type="checkbox" name="qualityGate" defaultChecked={posted('qualityGate') === 'on'} className="size-4" />
                {t('bulk.qualityGate')}
              </label>
              <div className="order-last flex justify-end gap-3">
                <ButtonLink to="/app?tab=results" variant="secondary">
                  {t('sites.cancel')}
                </ButtonLink>
                <Button type="submit" pending={busy}>
                  {busy
                    ? t('publish.publishing')
                    : hydrated && mode === 'drip'
                      ? t('drip.previewButton')
                      : t('bulk.submit', { count: results.length })}
                </Button>
              </div>
              {/* After the publish button in the page's order, so Enter in a field publishes; shown above it. */}
              {termChoices ? null : <ChooseTermsButton disabled={busy} />}
            </Form>
            {preview ? <DripPreview preview={preview} busy={busy} /> : null}
          </>
        )}
      </div>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.wordpressTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
