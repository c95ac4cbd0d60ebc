import { getFormProps, getInputProps, getSelectProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { useActionData, useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { FormAlert } from '~/components/auth-shell';
import { runUrl } from '~/components/generation/urls';
import { Button } from '~/components/ui/button';
import { ErrorList } from '~/components/ui/field';
import { inputClass } from '~/components/ui/input';
import type { RunLinkSettings } from '~/services/internal-links.server';
import type { Translate } from '~/utils/auth-schemas';
import { formatDateTime, useTimeZone } from '~/utils/time-zone';
import { LINK_COUNT_MAX, runLinkSettingsSchema } from '~/utils/link-schemas';
import { PostLinks, StayField, type LinkView } from './post-links';

// The internal links of a run, on the run's page: its settings and "Link posts",
// then each post's proposed links. Every form is a plain POST to the run's page (redirected back
// with a toast) and, with JavaScript, a fetcher: no reload, the button shows it is working.

type Settings = Omit<RunLinkSettings, 'linkedAt'> & { linkedAt: string | null };
export type RunLinksPostView = { id: string; title: string; topic: string; keyword: string; links: LinkView[]; removed: LinkView[] };
type Site = { id: number; name: string; isDefault: boolean };
type LinkRunReply = { intent: 'link-run'; result: SubmissionResult<string[]> };

export function RunLinksPanel({
  runId,
  settings,
  posts,
  sites,
}: {
  runId: string;
  settings: Settings;
  posts: RunLinksPostView[];
  sites: Site[];
}) {
  const { t, i18n } = useTranslation('workspace');
  const fetcher = useFetcher<LinkRunReply>();
  const actionData = useActionData<LinkRunReply | undefined>();
  const pageReply = actionData && actionData.intent === 'link-run' ? actionData.result : undefined;
  const [form, fields] = useForm({
    id: 'run-links',
    lastResult: fetcher.data?.result ?? pageReply,
    defaultValue: {
      enabled: settings.enabled ? 'on' : '',
      count: String(settings.count),
      sitePosts: settings.sitePosts ? 'on' : '',
      siteId: settings.siteId === null ? '' : String(settings.siteId),
    },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: runLinkSettingsSchema(t as Translate), disableAutoCoercion: true }),
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
  });
  const linking = fetcher.state !== 'idle';
  const kept = posts.reduce((n, p) => n + p.links.length, 0);
  const defaultSite = sites.find((s) => s.isDefault);
  const timeZone = useTimeZone();
  const linkedAt = settings.linkedAt ? formatDateTime(settings.linkedAt, i18n.language, timeZone) : null;

  return (
    <section
      id="internal-links"
      aria-labelledby="internal-links-title"
      data-testid="internal-links"
      className="flex flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8"
    >
      <div>
        <h2 id="internal-links-title" className="text-xl font-bold tracking-tight text-slate-900">
          {t('links.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('links.intro')}</p>
        <p className="mt-2 text-sm font-medium text-emerald-800" data-testid="links-free">
          {t('links.free')}
        </p>
      </div>

      <fetcher.Form method="post" action={runUrl(runId)} preventScrollReset {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="link-run" />
        <StayField />
        <FormAlert id={form.errorId} title={t('links.settingsFailed')} errors={form.errors} />
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input {...getInputProps(fields.enabled, { type: 'checkbox' })} className="size-4 rounded border-slate-300 text-indigo-600" />
          {t('links.enabled')}
        </label>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={fields.count.id} className="text-sm font-medium text-slate-800">
            {t('links.count')}
          </label>
          <input
            {...getInputProps(fields.count, { type: 'number' })}
            min={1}
            max={LINK_COUNT_MAX}
            step={1}
            inputMode="numeric"
            aria-describedby={[fields.count.errors ? fields.count.errorId : '', 'links-count-help'].filter(Boolean).join(' ')}
            className={`${inputClass} w-28`}
          />
          <p id="links-count-help" className="text-xs text-slate-600">
            {t('links.countHelp', { max: LINK_COUNT_MAX })}
          </p>
          <ErrorList id={fields.count.errorId} errors={fields.count.errors} />
        </div>
        {sites.length > 0 ? (
          <>
            <label className="flex items-center gap-2 text-sm text-slate-800">
              <input
                {...getInputProps(fields.sitePosts, { type: 'checkbox' })}
                className="size-4 rounded border-slate-300 text-indigo-600"
              />
              {t('links.sitePosts')}
            </label>
            <div className="flex flex-col gap-1.5">
              <label htmlFor={fields.siteId.id} className="text-sm font-medium text-slate-800">
                {t('links.site')}
              </label>
              <select
                {...getSelectProps(fields.siteId)}
                aria-describedby={fields.siteId.errors ? fields.siteId.errorId : undefined}
                className={`${inputClass} sm:w-80`}
              >
                <option value="">{defaultSite ? t('links.defaultSiteNamed', { site: defaultSite.name }) : t('links.defaultSite')}</option>
                {sites.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
              <ErrorList id={fields.siteId.errorId} errors={fields.siteId.errors} />
            </div>
          </>
        ) : (
          <>
            {/* No connected site: the run links among its own posts by slug; the stored choice stays. */}
            {settings.sitePosts ? <input type="hidden" name="sitePosts" value="on" /> : null}
            <p className="text-sm text-slate-700">{t('links.noSite')}</p>
          </>
        )}
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" pending={linking}>
            {linking ? t('links.linking') : t('links.linkRun')}
          </Button>
          <p className="text-sm text-slate-600" data-testid="links-linked-at">
            {linkedAt ? t('links.linkedAt', { date: linkedAt }) : t('links.neverLinked')}
          </p>
        </div>
      </fetcher.Form>

      <div className="flex flex-col gap-3">
        <h3 className="text-base font-semibold text-slate-900">{t('links.proposed')}</h3>
        <p className="text-sm text-slate-700" data-testid="links-summary">
          {t('links.summary', { count: kept, posts: posts.length })}
        </p>
        <ol className="flex flex-col gap-4">
          {posts.map((post) => (
            <PostLinks key={post.id} runId={runId} post={post} linked={settings.linkedAt !== null} />
          ))}
        </ol>
      </div>
    </section>
  );
}
