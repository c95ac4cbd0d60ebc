import type { SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
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
import { ExistingChoice } from '~/components/wordpress/existing-choice';
import { SitePicker } from '~/components/wordpress/site-picker';
import { TaxonomyFields } from '~/components/wordpress/taxonomy-fields';
import { ZoneNote } from '~/components/wordpress/zoned-time';
import { getT } from '~/i18n.server';
import { getResult } from '~/services/results.server';
import { requireUser } from '~/services/sessions.server';
import {
  existingPublication,
  imageResultHtml,
  listSites,
  publishAndWait,
  refreshSiteTimeZone,
  siteCategories,
  WordPressServiceError,
} from '~/services/wordpress.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { errorMessage, errorStatus } from '~/http/errors.server';
import { rootT } from '~/utils/meta';
import { redirectWithToast } from '~/http/toast.server';
import { publishSchema } from '~/utils/wordpress-schemas';
import { requestTimeZone } from '~/runtime/time-zone.server';
import { formatDateTimeInZone } from '~/utils/time-zone';
import { instantToZoned, zonedToInstant } from '~/utils/zoned-time';

// The Publish-to-WordPress dialog of a completed result (SPEC §2/§4), as a page so it works without
// JavaScript: site (default preselected; ?site= switches and reloads its categories), title,
// content in the rich editor (min height 400), excerpt, categories, tags, the generated image as
// featured image, publish now or schedule (date from today, time defaulting to now, user's zone,
// and the site's when it differs). A result already published to the chosen site (or waiting to
// be) is shown with a link to its post, and the user chooses: update that post or make a new one.

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
  const timeZone = requestTimeZone(request);
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

/**
 * The publish form as posted (read as typed, a repeated field by its first value): publish now, or
 * schedule at a date and time in a zone; then the publish payload's own rules (SPEC §3).
 */
const publishFormSchema = (t: Translate, resultId: string | undefined) =>
  z
    .record(z.unknown())
    .transform((form) => {
      const field = (name: string) => (Array.isArray(form[name]) ? (form[name] as unknown[])[0] : form[name]);
      const text = (name: string, fallback = '') => {
        const value = field(name);
        return value === undefined ? fallback : String(value);
      };
      const schedule = field('mode') === 'schedule';
      const at = schedule ? zonedToInstant(text('date'), text('time'), text('tz', 'UTC')) : null;
      const categories = form.categories === undefined ? [] : ([] as unknown[]).concat(form.categories).map(String);
      return {
        resultId,
        siteId: field('siteId'),
        title: field('title'),
        content: field('content'),
        excerpt: field('excerpt') ?? '',
        metaDescription: field('metaDescription'),
        slug: field('slug'),
        focusKeyword: field('focusKeyword'),
        categories,
        tags: text('tags'),
        status: schedule ? 'future' : 'publish',
        publishDate: at ? at.toISOString() : null,
        featured: field('featured') ?? '',
        onExisting: field('onExisting') ?? '',
        target: field('target') ?? '',
      };
    })
    .pipe(publishSchema(t));

/** Every message of a reply, in order (the page shows them in one alert). */
const messagesOf = (result: SubmissionResult<string[]> | undefined) =>
  result ? Object.values(result.error ?? {}).flatMap((messages) => messages ?? []) : undefined;

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  const submission = parseWithZod(formData, { schema: publishFormSchema(t, params.resultId), disableAutoCoercion: true });
  if (submission.status !== 'success') return json({ result: submission.reply() }, { status: 400 });
  const input = submission.value;
  const refuse = (message: string, status: number) => json({ result: submission.reply({ formErrors: [message] }) }, { status });
  let done;
  try {
    // Publish now waits for the site (bounded); a slower site finishes in the background.
    done = await publishAndWait(user.id, input);
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    // On this page only a text result or an image can be chosen: "not publishable" means not an image.
    return refuse(error.code === 'not_publishable' ? t('publish.notImage') : errorMessage(t, error), errorStatus(error));
  }
  if (!done) return refuse(t('publish.noContent'), 400);
  const { publication, outcome } = done;
  if (outcome === 'failed') return refuse(publication.lastError ?? t('publish.failed'), 502);
  const media = publication.kind === 'media';
  const title =
    outcome === 'scheduled'
      ? t('publish.scheduled')
      : outcome === 'background'
        ? t('publish.backgroundTitle')
        : media
          ? t('publish.mediaUploaded')
          : input.onExisting === 'update'
            ? t('publish.updated')
            : t('publish.published');
  const description = outcome === 'background' ? t('publish.background') : undefined;
  return redirectWithToast('/app?tab=results', { type: 'success', title, ...(description ? { description } : {}) });
}

export default function PublishResult() {
  const { user, account, result, sites, siteId, site, existing, nowIso, categories, categoriesFailed, timeZone, now } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t, i18n } = useTranslation('wordpress');
  // An image result: a post with the image, or the media library only (then the post's own fields
  // are hidden with JavaScript; without it they are shown and ignored, as the choice says).
  const [target, setTarget] = useState<'post' | 'media'>('post');
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting';
  const mode = params.get('mode') === 'schedule' ? 'schedule' : 'now';
  const tabLink = (m: 'now' | 'schedule') => `?${new URLSearchParams({ ...(siteId ? { site: String(siteId) } : {}), mode: m }).toString()}`;

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="mx-auto max-w-3xl">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('publish.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">
          <Link to="/wordpress" className="font-medium text-indigo-700 hover:underline">
            {t('publish.manageSites')}
          </Link>
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
                <Link
                  key={m}
                  to={tabLink(m)}
                  replace
                  preventScrollReset
                  aria-current={mode === m ? 'page' : undefined}
                  className={`-mb-px border-b-2 px-4 py-2 text-sm font-medium ${mode === m ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600'}`}
                >
                  {m === 'now' ? t('publish.nowTab') : t('publish.scheduleTab')}
                </Link>
              ))}
            </nav>
            <SitePicker sites={sites} siteId={siteId}>
              <input type="hidden" name="mode" value={mode} />
            </SitePicker>
            <Form method="post" className="mt-4 flex flex-col gap-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
              <FormAlert title={t('publish.failed')} errors={messagesOf(actionData?.result)} />
              <input type="hidden" name="siteId" value={siteId ?? ''} />
              <input type="hidden" name="mode" value={mode} />
              <input type="hidden" name="tz" value={timeZone} />
              {existing ? (
                <div
                  className="rounded-lg bg-amber-50 p-4 text-sm text-amber-950 ring-1 ring-inset ring-amber-200"
                  data-testid="already-published"
                >
                  <p className="font-semibold">{t('publish.existing.title', { site: existing.siteName })}</p>
                  <p className="mt-1">
                    {t(existing.status === 'published' ? 'publish.existing.published' : 'publish.existing.queued', {
                      date: formatDateTimeInZone(existing.at, i18n.language, timeZone),
                    })}{' '}
                    {existing.link ? (
                      <a href={existing.link} target="_blank" rel="noreferrer" className="font-medium text-indigo-700 underline">
                        {t('publish.existing.view')}
                      </a>
                    ) : null}
                  </p>
                  <fieldset className="mt-3">
                    <legend className="font-medium">{t('publish.existing.choose')}</legend>
                    {existing.status === 'published' ? (
                      <ExistingChoice
                        idPrefix="on-existing"
                        value="update"
                        label={t('publish.existing.update')}
                        help={t('publish.existing.updateHelp')}
                      />
                    ) : null}
                    <ExistingChoice
                      idPrefix="on-existing"
                      value="new"
                      label={t('publish.existing.new')}
                      help={t('publish.existing.newHelp')}
                    />
                    {existing.status === 'queued' ? (
                      <p className="mt-2">
                        {t('publish.existing.queuedHelp')}{' '}
                        <Link to="/wordpress" className="font-medium text-indigo-700 underline">
                          {t('publish.manageSites')}
                        </Link>
                      </p>
                    ) : null}
                  </fieldset>
                </div>
              ) : null}
              {result.isImage ? (
                <fieldset data-testid="publish-target">
                  <legend className="text-sm font-medium text-slate-800">{t('publish.target.legend')}</legend>
                  {(['post', 'media'] as const).map((value) => (
                    <div key={value} className="mt-2 flex items-start gap-2">
                      <input
                        id={`target-${value}`}
                        type="radio"
                        name="target"
                        value={value}
                        defaultChecked={value === 'post'}
                        onChange={() => setTarget(value)}
                        aria-describedby={`target-${value}-help`}
                        className="mt-0.5 size-4 shrink-0"
                      />
                      <div className="text-sm">
                        <label htmlFor={`target-${value}`} className="font-medium text-slate-800">
                          {t(`publish.target.${value}`)}
                        </label>
                        <p id={`target-${value}-help`} className="text-slate-600">
                          {t(`publish.target.${value}Help`)}
                        </p>
                      </div>
                    </div>
                  ))}
                </fieldset>
              ) : null}
              <Field label={t('publish.postTitle')} inputProps={{ name: 'title', defaultValue: result.title, required: true }} />
              <PostFields wrap={result.isImage} hidden={target === 'media'}>
                <RichTextEditor
                  id="publish-content"
                  name="content"
                  label={t('publish.content')}
                  defaultValue={result.content}
                  minHeight={400}
                />
                <div className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                  <label htmlFor="publish-excerpt">{t('publish.excerpt')}</label>
                  <textarea id="publish-excerpt" name="excerpt" rows={3} className={inputClass} aria-describedby="publish-excerpt-help" />
                  <span id="publish-excerpt-help" className="text-xs font-normal text-slate-600">
                    {t('seo.excerptHelp')}
                  </span>
                </div>
                {result.seo ? <SeoFieldset seo={result.seo} idPrefix="publish" /> : null}
                <TaxonomyFields categories={categories} categoriesFailed={categoriesFailed} />
              </PostFields>
              {result.hasImage && !result.isImage ? (
                <label className="flex items-center gap-2 text-sm text-slate-800">
                  <input type="checkbox" name="featured" defaultChecked className="size-4" />
                  {t('publish.featured')}
                </label>
              ) : null}
              {mode === 'schedule' ? (
                <div className="flex flex-wrap gap-4">
                  <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                    {t('publish.date')}
                    <input type="date" name="date" min={now.date} defaultValue={now.date} required className={`${inputClass} w-44`} />
                  </label>
                  <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
                    {t('publish.time')}
                    <input type="time" name="time" defaultValue={now.time} required className={`${inputClass} w-32`} />
                  </label>
                  <ZoneNote timeZone={timeZone} site={site} now={nowIso} />
                </div>
              ) : null}
              <div className="flex justify-end gap-3">
                <ButtonLink to="/app?tab=results" variant="secondary">
                  {t('sites.cancel')}
                </ButtonLink>
                <Button type="submit" pending={busy}>
                  {busy ? t('publish.publishing') : mode === 'schedule' ? t('publish.submitSchedule') : t('publish.submitNow')}
                </Button>
              </div>
            </Form>
          </>
        )}
      </div>
    </AppShell>
  );
}

/** The post's own fields; for an image result in a box that JavaScript hides when "media library only" is picked. */
function PostFields({ wrap, hidden, children }: { wrap: boolean; hidden: boolean; children: React.ReactNode }) {
  if (!wrap) return <>{children}</>;
  return <div className={`flex flex-col gap-4${hidden ? ' hidden' : ''}`}>{children}</div>;
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.wordpressTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
