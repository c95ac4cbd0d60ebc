import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useActionData, useFetcher, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { AppShell } from '~/components/app-shell';
import { FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { ScheduledList } from '~/components/wordpress/scheduled-list';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { UrlDialog } from '~/components/ui/dialog';
import { Field } from '~/components/ui/field';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { cancelPublication, listScheduled, retryPublicationNow } from '~/services/wordpress/schedules.server';
import {
  createSite,
  deleteSite,
  getSite,
  listSites,
  openTestedPassword,
  refreshSiteTimeZone,
  sealTestedPassword,
  setDefaultSite,
  siteCredentials,
  testConnection,
  updateSite,
} from '~/services/wordpress/sites.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { rootT } from '~/utils/meta';
import { redirectWithToast } from '~/http/toast.server';
import { connectionMessage } from '~/http/wordpress-api.server';
import { siteSchema, siteUpdateSchema, testConnectionSchema } from '~/utils/wordpress-schemas';
import { moveScheduled } from '~/services/wordpress/drip.server';
import { scheduleRefusal } from '~/http/schedule-messages.server';
import { moveSchema } from '~/utils/drip-schemas';
import { refreshSitePosts, sitePostsSummary } from '~/services/internal-links.server';
import { AppError } from '~/utils/app-error';
import { errorMessage } from '~/http/errors.server';
import { formatDateTimeInZone } from '~/utils/time-zone';
import { useTimeZone, validTimeZone } from '~/utils/time-zone';

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const [sites, scheduled, postCache] = await Promise.all([listSites(userId), listScheduled(userId), sitePostsSummary(userId)]);
  return json({ user, account, sites, scheduled, postCache }, { headers: privatePageHeaders });
}

const intents = z.enum([
  'create',
  'update',
  'test',
  'delete',
  'default',
  'refresh-posts',
  'cancel-scheduled',
  'move-scheduled',
  'retry-scheduled',
]);

/** The Test connection button (the dialog checks only what a test needs). */
const testIntent = z.object({ intent: z.literal('test') });

const formText = z.unknown().transform((v) => (typeof v === 'string' ? v : ''));
/**
 * What every form of the page posts beside its own fields (read without coercion, as typed): which
 * button, the site or publication it is about, the password field and a sealed tested password.
 */
const actionHeadSchema = z.object({
  intent: intents,
  siteId: z.unknown().transform((v) => Number(typeof v === 'string' ? v : 0)),
  appPassword: formText,
  testedPassword: formText,
  publicationId: formText,
});

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  const head = parseWithZod(formData, { schema: actionHeadSchema, disableAutoCoercion: true });
  if (head.status !== 'success') return json({ intent: 'unknown' as const }, { status: 400 });
  const { siteId, appPassword, testedPassword } = head.value;
  const intent = head.value.intent;
  const back = '/wordpress';

  switch (intent) {
    case 'test': {
      // A password typed and tested before (the page came back without JavaScript) is tested again.
      const typed = appPassword.trim() || openTestedPassword(user.id, testedPassword);
      // Editing a site: a blank password field tests with the stored one.
      if (typed) formData.set('appPassword', typed);
      else if (siteId > 0) {
        const stored = await siteCredentials(user.id, siteId).catch(() => null);
        if (stored) formData.set('appPassword', stored.appPassword);
      }
      const submission = parseWithZod(formData, { schema: testConnectionSchema(t) });
      if (submission.status !== 'success') {
        return json(
          { intent: 'test' as const, result: submission.reply({ hideFields: ['appPassword'] }), test: null, testedPassword: null },
          { status: 400 },
        );
      }
      const check = await testConnection(submission.value);
      return json({
        intent: 'test' as const,
        result: submission.reply({ hideFields: ['appPassword'] }),
        test: connectionMessage(t, check),
        // The password never comes back in the field; sealed, it lets Save use it (issue 25 §13).
        testedPassword: typed ? sealTestedPassword(user.id, typed) : null,
      });
    }
    case 'create':
    case 'update': {
      // Save right after Test connection without JavaScript: the field is empty, the tested password sealed.
      if (!appPassword.trim()) {
        const tested = openTestedPassword(user.id, testedPassword);
        if (tested) formData.set('appPassword', tested);
      }
      const schema = intent === 'create' ? siteSchema(t) : siteUpdateSchema(t);
      const submission = parseWithZod(formData, { schema });
      if (submission.status !== 'success') {
        return json({ intent: intent, result: submission.reply({ hideFields: ['appPassword'] }), test: null }, { status: 400 });
      }
      try {
        // The form's unchecked boxes send nothing: Classic HTML off, internal links off.
        const input = {
          ...submission.value,
          classicHtml: submission.value.classicHtml ?? false,
          internalLinks: submission.value.internalLinks ?? false,
        };
        const saved =
          intent === 'create'
            ? await createSite(user.id, input as z.infer<ReturnType<typeof siteSchema>>)
            : await updateSite(user.id, siteId, input);
        // The site's time zone, for showing scheduled times as the site sees them (best effort).
        await refreshSiteTimeZone(user.id, saved.id).catch(() => null);
      } catch (error) {
        if (error instanceof WordPressServiceError && error.code === 'blocked_url') {
          // Nothing saved; the form comes back with what was typed and the reason on the URL field.
          const password = submission.payload.appPassword;
          const typed = typeof password === 'string' ? password.trim() : '';
          return json(
            {
              intent,
              result: submission.reply({ fieldErrors: { siteUrl: [t('sites.blockedUrl')] }, hideFields: ['appPassword'] }),
              test: null,
              testedPassword: typed ? sealTestedPassword(user.id, typed) : null,
            },
            { status: 422 },
          );
        }
        if (error instanceof WordPressServiceError)
          return redirectWithToast(back, { type: 'error', title: t('sites.updateFailed'), description: t('sites.notFound') });
        throw error;
      }
      return redirectWithToast(back, { type: 'success', title: intent === 'create' ? t('sites.added') : t('sites.updated') });
    }
    case 'delete':
    case 'default': {
      try {
        if (intent === 'delete') await deleteSite(user.id, siteId);
        else await setDefaultSite(user.id, siteId);
      } catch (error) {
        if (!(error instanceof WordPressServiceError)) throw error;
        return redirectWithToast(back, {
          type: 'error',
          title: intent === 'delete' ? t('sites.deleteFailed') : t('sites.defaultFailed'),
          description: t('sites.notFound'),
        });
      }
      return redirectWithToast(back, { type: 'success', title: intent === 'delete' ? t('sites.deleted') : t('sites.defaultUpdated') });
    }
    case 'refresh-posts': {
      // The site's published posts read again as link targets (issue 26 §1): bounded by
      // LINK_SOURCE_MAX_POSTS; presses at once share one read. The site's refusal in the user's words.
      try {
        const site = await getSite(user.id, siteId);
        const count = await refreshSitePosts(user.id, siteId);
        return redirectWithToast(back, {
          type: 'success',
          title: t('sites.postsRefreshed'),
          description: t('sites.postsRefreshedBody', { count, site: site.siteName }),
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return redirectWithToast(back, { type: 'error', title: t('sites.refreshFailed'), description: errorMessage(t, error) });
      }
    }
    case 'cancel-scheduled':
    case 'move-scheduled':
    case 'retry-scheduled': {
      const id = head.value.publicationId;
      try {
        if (intent === 'cancel-scheduled') {
          await cancelPublication(user.id, id);
          return redirectWithToast(back, { type: 'success', title: t('scheduled.canceled') });
        }
        if (intent === 'retry-scheduled') {
          await retryPublicationNow(user.id, id);
          return redirectWithToast(back, { type: 'success', title: t('scheduled.retrying') });
        }
        // The calendar's move: the same checks (a drip post stays inside its site's schedule).
        const move = parseWithZod(formData, { schema: moveSchema(t), disableAutoCoercion: true });
        if (move.status !== 'success')
          return redirectWithToast(back, { type: 'error', title: t('publish.failed'), description: t('validation.date') });
        await moveScheduled(user.id, id, move.value.date, move.value.time, validTimeZone(move.value.tz) ?? 'UTC');
        return redirectWithToast(back, { type: 'success', title: t('scheduled.moved') });
      } catch (error) {
        if (!(error instanceof WordPressServiceError)) throw error;
        return redirectWithToast(back, { type: 'error', title: t('publish.failed'), description: scheduleRefusal(t, error.code) });
      }
    }
  }
}

type LoaderSite = ReturnType<typeof useLoaderData<typeof loader>>['sites'][number];
type LoaderPostCache = ReturnType<typeof useLoaderData<typeof loader>>['postCache'][number];

export default function WordPressSites() {
  const { user, account, sites, scheduled, postCache } = useLoaderData<typeof loader>();
  const { t } = useTranslation('wordpress');
  const [params] = useSearchParams();
  const zone = useTimeZone();
  const editId = Number(params.get('edit'));
  const deleteId = Number(params.get('delete'));
  const editing = sites.find((s) => s.id === editId);
  const deleting = sites.find((s) => s.id === deleteId);
  const adding = params.get('add') === '1';

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('common:wordpress.title')}</h1>
          <p className="mt-1 text-sm text-slate-700">{t('common:wordpress.subtitle')}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink to="/app/calendar" variant="secondary">
            {t('calendar.link')}
          </ButtonLink>
          <ButtonLink to="?add=1" preventScrollReset>
            {t('sites.add')}
          </ButtonLink>
        </div>
      </div>
      <div className="mt-8 border-b border-slate-200">
        <h2 className="-mb-px inline-flex border-b-2 border-indigo-600 px-4 py-3 text-sm font-medium text-indigo-700">
          {t('common:wordpress.sitesTab')}
        </h2>
      </div>
      <section
        aria-label={t('sites.listLabel')}
        data-testid="site-list"
        className="mt-6 h-[400px] overflow-y-auto rounded-2xl bg-white shadow-sm ring-1 ring-slate-200"
        // A scrollable region must be reachable by keyboard (axe: scrollable-region-focusable).
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
        tabIndex={0}
      >
        {sites.length === 0 ? (
          <div className="flex h-full flex-col items-center justify-center p-8 text-center">
            <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-700">
              <Icon name="globe" className="size-6" />
            </span>
            <p className="mt-4 text-lg font-semibold text-slate-900">{t('common:wordpress.emptyTitle')}</p>
            <p className="mt-2 max-w-md text-sm text-slate-700">{t('common:wordpress.emptyBody')}</p>
          </div>
        ) : (
          <ul className="divide-y divide-slate-200">
            {sites.map((site) => (
              <SiteRow key={site.id} site={site} cache={postCache.find((c) => c.siteId === site.id)} timeZone={zone} />
            ))}
          </ul>
        )}
      </section>

      <ScheduledList scheduled={scheduled} timeZone={zone} />

      <SeoPluginHelp />

      {adding ? <SiteDialog mode="create" /> : null}
      {editing ? <SiteDialog mode="update" site={editing} /> : null}
      {deleting ? (
        <UrlDialog title={t('sites.deleteTitle')} closeTo="/wordpress" closeLabel={t('sites.close')}>
          <p className="mt-3 text-sm text-slate-700">{t('sites.deleteBody', { site: deleting.siteName })}</p>
          <Form method="post" action="/wordpress" className="mt-6 flex justify-end gap-3">
            <input type="hidden" name="siteId" value={deleting.id} />
            <ButtonLink to="/wordpress" variant="secondary" replace preventScrollReset>
              {t('sites.cancel')}
            </ButtonLink>
            <Button type="submit" name="intent" value="delete" variant="destructive">
              {t('sites.deleteConfirm')}
            </Button>
          </Form>
        </UrlDialog>
      ) : null}
    </AppShell>
  );
}

function SiteRow({ site, cache, timeZone }: { site: LoaderSite; cache?: LoaderPostCache; timeZone: string }) {
  const { t } = useTranslation('wordpress');
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 px-5 py-4" data-testid="site-row">
      <div className="min-w-0">
        <p className="flex items-center gap-2 font-semibold text-slate-900">
          <span className="truncate">{site.siteName}</span>
          {site.isDefault ? <Badge tone="success">{t('sites.default')}</Badge> : null}
          {site.classicHtml ? <Badge>{t('sites.classicBadge')}</Badge> : null}
          {!site.internalLinks ? <Badge>{t('sites.linksOffBadge')}</Badge> : null}
        </p>
        <p className="truncate text-sm text-slate-600">
          {site.siteUrl} · {site.username}
        </p>
        <SitePostsCache cache={cache} timeZone={timeZone} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <RefreshPostsButton site={site} />
        {!site.isDefault ? (
          <Form method="post" action="/wordpress">
            <input type="hidden" name="siteId" value={site.id} />
            <Button type="submit" name="intent" value="default" variant="ghost" size="sm">
              {t('sites.makeDefault')}
            </Button>
          </Form>
        ) : null}
        <ButtonLink
          to={`?edit=${site.id}`}
          variant="secondary"
          size="sm"
          preventScrollReset
          aria-label={`${t('sites.edit')} ${site.siteName}`}
        >
          {t('sites.edit')}
        </ButtonLink>
        <ButtonLink
          to={`?delete=${site.id}`}
          variant="ghost"
          size="sm"
          preventScrollReset
          aria-label={`${t('sites.delete')} ${site.siteName}`}
          className="text-red-700"
        >
          {t('sites.delete')}
        </ButtonLink>
      </div>
    </li>
  );
}

/** How many of the site's posts are cached as link targets, and when they were read (issue 26 §1). */
function SitePostsCache({ cache, timeZone }: { cache?: LoaderPostCache; timeZone: string }) {
  const { t, i18n } = useTranslation('wordpress');
  return (
    <p className="text-xs text-slate-600" data-testid="site-posts">
      {cache?.refreshedAt ? (
        <>
          {t('sites.postsCached', { count: cache.count })} ·{' '}
          {t('sites.postsReadAt', { time: formatDateTimeInZone(cache.refreshedAt, i18n.language, timeZone) })}
        </>
      ) : (
        t('sites.postsNever')
      )}
    </p>
  );
}

/**
 * Reads the site's posts again. With JavaScript a fetcher posts it and the button shows the read
 * under way; without, the form posts and the page comes back with the outcome as a toast.
 */
function RefreshPostsButton({ site }: { site: LoaderSite }) {
  const { t } = useTranslation('wordpress');
  const fetcher = useFetcher();
  const pending = fetcher.state !== 'idle';
  return (
    <fetcher.Form method="post" action="/wordpress">
      <input type="hidden" name="siteId" value={site.id} />
      <Button
        type="submit"
        name="intent"
        value="refresh-posts"
        variant="ghost"
        size="sm"
        pending={pending}
        aria-label={t('sites.refreshPostsLabel', { site: site.siteName })}
      >
        {pending ? t('sites.refreshingPosts') : t('sites.refreshPosts')}
      </Button>
    </fetcher.Form>
  );
}

/** Where to get the companion plugin and how to install it (issue 21 §3). */
function SeoPluginHelp() {
  const { t } = useTranslation('wordpress');
  return (
    <section
      aria-labelledby="seo-plugin-title"
      className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
      data-testid="seo-plugin"
    >
      <h2 id="seo-plugin-title" className="text-lg font-semibold text-slate-900">
        {t('seoPlugin.title')}
      </h2>
      <p className="mt-2 text-sm text-slate-700">{t('seoPlugin.body')}</p>
      <ol className="mt-3 list-decimal space-y-1 pl-5 text-sm text-slate-800">
        <li>
          <a href={SEO_PLUGIN_URL} download className="font-medium text-indigo-700 underline">
            {t('seoPlugin.download')}
          </a>
        </li>
        <li>{t('seoPlugin.stepUpload')}</li>
        <li>{t('seoPlugin.stepActivate')}</li>
        <li>{t('seoPlugin.stepTest')}</li>
      </ol>
      <p className="mt-3 text-sm text-slate-600">{t('seoPlugin.without')}</p>
    </section>
  );
}

/** The companion plugin, served as a static file from public/wordpress/. */
const SEO_PLUGIN_URL = '/wordpress/postforge-seo.php';

function SiteDialog({ mode, site }: { mode: 'create' | 'update'; site?: LoaderSite }) {
  const { t } = useTranslation('wordpress');
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state !== 'idle' && navigation.formData?.get('intent') === intent;
  const lastResult = actionData && 'result' in actionData ? actionData.result : undefined;
  const test = actionData && 'test' in actionData ? actionData.test : null;
  const testedPassword = actionData && 'testedPassword' in actionData ? actionData.testedPassword : null;
  const [form, fields] = useForm({
    id: `site-${mode}`,
    lastResult,
    defaultValue: site
      ? {
          siteUrl: site.siteUrl,
          username: site.username,
          isDefault: site.isDefault ? 'on' : '',
          classicHtml: site.classicHtml ? 'on' : '',
          internalLinks: site.internalLinks ? 'on' : '',
        }
      : // Internal links cost nothing: on unless the user says otherwise.
        { internalLinks: 'on' },
    onValidate: ({ formData }) => {
      const testing = parseWithZod(formData, { schema: testIntent }).status === 'success';
      const tr = t as Translate;
      // Editing: a blank password tests (and keeps) the stored one.
      // A password tested before (sealed in the form) counts as filled in.
      const keepsPassword = mode === 'update' || Boolean(testedPassword);
      const testSchema = keepsPassword ? testConnectionSchema(tr).extend({ appPassword: z.string().optional() }) : testConnectionSchema(tr);
      const schema = testing ? testSchema : keepsPassword ? siteUpdateSchema(tr) : siteSchema(tr);
      return parseWithZod(formData, { schema });
    },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
  });
  return (
    <UrlDialog title={mode === 'create' ? t('sites.addTitle') : t('sites.editTitle')} closeTo="/wordpress" closeLabel={t('sites.close')}>
      <Form
        method="post"
        action={mode === 'create' ? '/wordpress?add=1' : `/wordpress?edit=${site?.id}`}
        {...getFormProps(form)}
        className="mt-4 flex flex-col gap-4"
      >
        {site ? <input type="hidden" name="siteId" value={site.id} /> : null}
        {testedPassword ? <input type="hidden" name="testedPassword" value={testedPassword} /> : null}
        <FormAlert id={form.errorId} title={t('sites.addFailed')} errors={form.errors} />
        <Field
          label={t('sites.siteUrl')}
          inputProps={{
            ...getInputProps(fields.siteUrl, { type: 'url' }),
            placeholder: t('sites.siteUrlPlaceholder'),
            autoComplete: 'url',
          }}
          errors={fields.siteUrl.errors}
        />
        <Field
          label={t('sites.username')}
          inputProps={{ ...getInputProps(fields.username, { type: 'text' }), autoComplete: 'username' }}
          errors={fields.username.errors}
        />
        <Field
          label={t('sites.appPassword')}
          inputProps={{ ...getInputProps(fields.appPassword, { type: 'password' }), autoComplete: 'new-password' }}
          errors={fields.appPassword.errors}
          help={testedPassword ? t('sites.appPasswordTested') : mode === 'update' ? t('sites.appPasswordKeep') : t('sites.appPasswordHelp')}
        />
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input {...getInputProps(fields.isDefault, { type: 'checkbox' })} className="size-4 rounded border-slate-300 text-indigo-600" />
          {t('sites.isDefault')}
        </label>
        <CheckboxWithHelp
          inputProps={getInputProps(fields.classicHtml, { type: 'checkbox' })}
          helpId="classic-html-help"
          label={t('sites.classicHtml')}
          help={t('sites.classicHtmlHelp')}
        />
        <CheckboxWithHelp
          inputProps={getInputProps(fields.internalLinks, { type: 'checkbox' })}
          helpId="internal-links-help"
          label={t('sites.internalLinks')}
          help={t('sites.internalLinksHelp')}
        />
        {test ? (
          <div
            role="status"
            data-testid="connection-result"
            className={`rounded-lg p-3 text-sm ring-1 ring-inset ${test.success ? 'bg-emerald-50 text-emerald-900 ring-emerald-200' : 'bg-red-50 text-red-900 ring-red-200'}`}
          >
            <p className="font-semibold">{test.message}</p>
            {test.success ? (
              <p className="mt-1" data-testid="seo-plugin-status" data-active={test.seoPlugin ? 'true' : 'false'}>
                {test.seoPlugin ? t('connection.seoPluginActive') : t('connection.seoPluginMissing')}
              </p>
            ) : null}
            {!test.success && test.diagnosis ? (
              <p className="mt-1">
                <span className="font-medium">{t('connection.whatToDo')}: </span>
                {test.diagnosis.hint}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="mt-2 flex flex-wrap justify-end gap-3">
          <Button type="submit" name="intent" value="test" variant="secondary" pending={busy('test')} formNoValidate>
            {busy('test') ? t('sites.testing') : t('sites.testConnection')}
          </Button>
          <Button type="submit" name="intent" value={mode} pending={busy(mode)}>
            {busy(mode) ? t('sites.saving') : t('sites.save')}
          </Button>
        </div>
      </Form>
    </UrlDialog>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.wordpressTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}

/** A site option: its box, its label and a line of help the box is described by. */
function CheckboxWithHelp({
  inputProps,
  helpId,
  label,
  help,
}: {
  inputProps: ReturnType<typeof getInputProps>;
  helpId: string;
  label: string;
  help: string;
}) {
  return (
    <div className="flex items-start gap-2 text-sm text-slate-800">
      <input {...inputProps} className="mt-0.5 size-4 shrink-0 rounded border-slate-300 text-indigo-600" aria-describedby={helpId} />
      <div>
        <label htmlFor={inputProps.id}>{label}</label>
        <p id={helpId} className="text-xs text-slate-600">
          {help}
        </p>
      </div>
    </div>
  );
}
