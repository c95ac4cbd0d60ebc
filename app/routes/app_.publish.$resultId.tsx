import type { SubmissionResult } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isPro } from '~/catalogue';
import { AppShell } from '~/components/app-shell';
import { FormAlert } from '~/components/auth-shell';
import { RichTextEditor } from '~/components/editor/rich-text-editor';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { Field } from '~/components/ui/field';
import { inputClass } from '~/components/ui/input';
import { SeoFieldset } from '~/components/wordpress/seo-fieldset';
import { PublishExisting } from '~/components/wordpress/publish-existing';
import { PostFields, PublishTarget } from '~/components/wordpress/publish-target';
import { SitePicker } from '~/components/wordpress/site-picker';
import { TaxonomyFields } from '~/components/wordpress/taxonomy-fields';
import { ChooseTermsButton, type TermChoiceView } from '~/components/wordpress/post-terms-review';
import { ZoneNote } from '~/components/wordpress/zoned-time';
import { getT } from '~/i18n.server';
import { getResult } from '~/services/results.server';
import { requireUser } from '~/services/sessions.server';
import { imageResultHtml } from '~/services/wordpress/content.server';
import { existingPublication } from '~/services/wordpress/publications.server';
import { listSites, refreshSiteTimeZone, siteCategories } from '~/services/wordpress/sites.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { chooseResultTerms, publishResult, type PublishFormSent } from '~/http/wordpress-publish.server';
import { rootT } from '~/utils/meta';
import { readerTimeZone } from '~/http/time-zone.server';
import { instantToZoned } from '~/utils/zoned-time';
import { AppLink } from '~/components/ui/app-link';

// The Publish-to-WordPress dialog of a completed result, as a page so it works without
// JavaScript: site (default preselected; ?site= switches and reloads its categories), title,
// content in the rich editor (min height 400), excerpt, categories, tags, the generated image as
// featured image, publish now or schedule (date from today, time defaulting to now, user's zone,
// and the site's when it differs). A result already published to the chosen site (or waiting to
// be) is shown with a link to its post, and the user chooses: update that post or make a new one.
// "Publish only if its quality report passes, or I approved it" holds a failing post for review.

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  if (!isPro(user.subscriptionStatus)) throw redirect('/app?tab=wordpress');
  const result = await getResult(userId, params.resultId ?? '').catch(() => null);
  if (!result || result.status !== 'completed' || !result.content) throw new Response('Not found', { status: 404 });
  const sites = await listSites(userId);
  const url = new URL(request.url);
  const chosen = sites.find((s) => String(s.id) === url.searchParams.get('site')) ?? sites.find((s) => s.isDefault) ?? sites[0] ?? null;
  let categories: { id: number; name: string }[] = [];
  let categoriesFailed = false;
  let siteZone = chosen?.timeZone ?? null;
  let existing = null;
  if (chosen) {
    [categories, siteZone, existing] = await Promise.all([
      siteCategories(userId, chosen.id).catch(() => {
        categoriesFailed = true;
        return [];
      }),
      refreshSiteTimeZone(userId, chosen.id).catch(() => siteZone),
      existingPublication(userId, result.id, chosen.id),
    ]);
  }
  const timeZone = await readerTimeZone(request);
  const now = instantToZoned(new Date(), timeZone);
  return json(
    {
      user,
      account,
      result: {
        id: result.id,
        title: result.title ?? result.prompt,
        content: result.type === 'text' ? result.content : imageResultHtml(result, result.title ?? result.prompt),
        hasImage: result.metadata.imageUrls.length > 0,
        seo: result.seo,
        isImage: result.type === 'image',
      },
      sites: sites.map((s) => ({ id: s.id, siteName: s.siteName })),
      siteId: chosen?.id ?? null,
      site: chosen ? { siteName: chosen.siteName, timeZone: siteZone } : null,
      existing: existing
        ? { status: existing.status, link: existing.link, at: existing.publishedAt ?? existing.publishAt, siteName: existing.siteName }
        : null,
      nowIso: new Date().toISOString(),
      categories,
      categoriesFailed,
      timeZone,
      now,
    },
    { headers: privatePageHeaders },
  );
}

/** Every message of a reply, in order (the page shows them in one alert). */
const messagesOf = (result: SubmissionResult<string[]> | undefined) =>
  result ? Object.values(result.error ?? {}).flatMap((messages) => messages ?? []) : undefined;

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  if (formData.get('intent') === 'choose-terms') return chooseResultTerms({ userId: user.id, resultId: params.resultId, formData });
  return publishResult({ userId: user.id, resultId: params.resultId, formData, t, timeZone: await readerTimeZone(request, user) });
}

export default function PublishResult() {
  const { user, account, result, sites, siteId, site, existing, nowIso, categories, categoriesFailed, timeZone, now } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation('wordpress');
  const termChoice = (actionData && 'termChoice' in actionData ? actionData.termChoice : null) as TermChoiceView | null;
  // What the form carried when it came back (terms chosen, or refused): shown again, not the stored result.
  const sent: Partial<PublishFormSent> = (actionData && 'sent' in actionData ? actionData.sent : null) ?? {};
  const seo = result.seo
    ? {
        seoTitle: sent.seoTitle ?? result.seo.seoTitle,
        metaDescription: sent.metaDescription ?? result.seo.metaDescription,
        slug: sent.slug ?? result.seo.slug,
        focusKeyword: sent.focusKeyword ?? result.seo.focusKeyword,
      }
    : null;
  // An image result: a post with the image, or the media library only (then the post's own fields
  // are hidden with JavaScript; without it they are shown and ignored, as the choice says).
  const [target, setTarget] = useState<'post' | 'media'>('post');
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting';
  const mode = params.get('mode') === 'schedule' ? 'schedule' : 'now';
  const tabLink = (m: 'now' | 'schedule') =>
    `/app/publish/${result.id}?${new URLSearchParams({ ...(siteId ? { site: String(siteId) } : {}), mode: m }).toString()}`;

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="mx-auto max-w-3xl">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('publish.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">
          <AppLink to="/wordpress" className="font-medium text-indigo-700 hover:underline">
            {t('publish.manageSites')}
          </AppLink>
        </p>
        {sites.length === 0 ? (
          <div className="mt-6 rounded-2xl bg-white p-6 text-center shadow-sm ring-1 ring-slate-200">
            <p className="text-slate-700">{t('publish.noSites')}</p>
            <ButtonLink to="/wordpress?add=1" className="mt-4">
              {t('sites.add')}
            </ButtonLink>
          </div>
        ) : (
          <>
            <nav className="mt-6 flex gap-2 border-b border-slate-200" aria-label={t('publish.title')}>
              {(['now', 'schedule'] as const).map((m) => (
                <AppLink
                  key={m}
                  to={tabLink(m)}
                  replace
                  preventScrollReset
                  aria-current={mode === m ? 'page' : undefined}
                  className={`-mb-px border-b-2 px-4 py-2 text-sm font-medium ${mode === m ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600'}`}
                >
                  {m === 'now' ? t('publish.nowTab') : t('publish.scheduleTab')}
                </AppLink>
              ))}
            </nav>
            <SitePicker sites={sites} siteId={siteId}>
              <input type="hidden" name="mode" value={mode} />
            </SitePicker>
            <Form method="post" className="mt-4 flex flex-col gap-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
              <FormAlert
                title={t('publish.failed')}
                errors={messagesOf(actionData && 'result' in actionData ? actionData.result : undefined)}
              />
              <input type="hidden" name="siteId" value={siteId ?? ''} />
              <input type="hidden" name="mode" value={mode} />
              <input type="hidden" name="tz" value={timeZone} />
              {existing ? <PublishExisting existing={existing} timeZone={timeZone} /> : null}
              {result.isImage ? <PublishTarget onChange={setTarget} /> : null}
              <Field
                label={t('publish.postTitle')}
                inputProps={{ name: 'title', defaultValue: sent.title ?? result.title, required: true }}
              />
              <PostFields wrap={result.isImage} hidden={target === 'media'}>
                <RichTextEditor
                  id="publish-content"
                  name="content"
                  label={t('publish.content')}
                  defaultValue={sent.content ?? result.content}
                  minHeight={400}
                />
                <div className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                  <label htmlFor="publish-excerpt">{t('publish.excerpt')}</label>
                  <textarea
                    id="publish-excerpt"
                    name="excerpt"
                    rows={3}
                    defaultValue={sent.excerpt}
                    className={inputClass}
                    aria-describedby="publish-excerpt-help"
                  />
                  <span id="publish-excerpt-help" className="text-xs font-normal text-slate-600">
                    {t('seo.excerptHelp')}
                  </span>
                </div>
                {seo ? <SeoFieldset seo={seo} idPrefix="publish" /> : null}
                <TaxonomyFields
                  key={termChoice ? 'chosen' : 'shared'}
                  categories={categories}
                  categoriesFailed={categoriesFailed}
                  chosen={termChoice?.choice ?? undefined}
                />
                {termChoice?.failed ? (
                  <p className="text-sm text-amber-800" role="status">
                    {t(`terms.failed.${termChoice.failed}`)}
                  </p>
                ) : null}
                {termChoice?.choice ? <p className="text-xs text-slate-600">{t('terms.reviewHelp')}</p> : null}
              </PostFields>
              {result.hasImage && !result.isImage ? (
                <label className="flex items-center gap-2 text-sm text-slate-800">
                  <input type="checkbox" name="featured" defaultChecked className="size-4" />
                  {t('publish.featured')}
                </label>
              ) : null}
              {result.isImage ? null : (
                <div className="flex flex-col gap-1 text-sm text-slate-800">
                  <label className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      name="qualityGate"
                      defaultChecked={sent.qualityGate === 'on'}
                      aria-describedby="publish-gate-help"
                      className="size-4"
                    />
                    {t('publish.qualityGate')}
                  </label>
                  <span id="publish-gate-help" className="text-xs text-slate-600">
                    {t('publish.qualityGateHelp')}
                  </span>
                </div>
              )}
              {mode === 'schedule' ? (
                <div className="flex flex-wrap gap-4">
                  <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                    {t('publish.date')}
                    <input
                      type="date"
                      name="date"
                      min={now.date}
                      defaultValue={sent.date ?? now.date}
                      required
                      className={`${inputClass} w-44`}
                    />
                  </label>
                  <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                    {t('publish.time')}
                    <input type="time" name="time" defaultValue={sent.time ?? now.time} required className={`${inputClass} w-32`} />
                  </label>
                  <ZoneNote timeZone={timeZone} site={site} now={nowIso} />
                </div>
              ) : null}
              <div className="order-last flex justify-end gap-3">
                <ButtonLink to="/app?tab=results" variant="secondary">
                  {t('sites.cancel')}
                </ButtonLink>
                <Button type="submit" pending={busy}>
                  {busy ? t('publish.publishing') : mode === 'schedule' ? t('publish.submitSchedule') : t('publish.submitNow')}
                </Button>
              </div>
              {/* After the publish button in the page's order, so Enter in a field publishes; shown above it. */}
              {result.isImage ? null : <ChooseTermsButton disabled={busy} />}
            </Form>
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
