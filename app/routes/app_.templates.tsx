import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { MAX_TEMPLATES_PER_USER } from '~/catalogue';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { CARRY_FIELD, SaveTemplateForm, TemplateList, TypeBadge, TEMPLATES_PAGE } from '~/components/inputs/templates';
import { buttonClass } from '~/components/ui/button';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { createTemplate, deleteTemplate, listTemplates } from '~/services/templates.server';
import { getLastUsed, getSettings } from '~/services/user-settings.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/auth-schemas';
import { initialFormValues, templateSettingsFor, templateSettingsOfForm, type TemplateType } from '~/utils/input-settings';
import { readFormData } from '~/http/json-api.server';
import { rootT } from '~/utils/meta';
import { parseNewTemplate } from '~/utils/template-request';
import { redirectWithToast } from '~/http/toast.server';
import { AppLink } from '~/components/ui/app-link';

// Templates dialog as a page: what the dialog is without JavaScript (every button a form or
// a link). The generation form's "Save Current" posts its fields here, which opens the save form with them (?save=1&model=...).

const typeOf = (value: string | null): TemplateType => (value === 'image' ? 'image' : 'text');

/** The settings carried to the save form: the query's (from the generation form) or the last-used values. */
function carriedSettings(params: URLSearchParams, type: TemplateType, fallback: Record<string, unknown>): Record<string, string> {
  const keys = Object.keys(templateSettingsFor(type).strict.shape);
  const given = keys.filter((k) => params.has(k));
  const source: Record<string, unknown> = given.length ? Object.fromEntries(given.map((k) => [k, params.get(k)])) : fallback;
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined && source[k] !== null).map((k) => [k, String(source[k])]));
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const params = new URL(request.url).searchParams;
  const type = typeOf(params.get('type'));
  const [templates, last, settings] = await Promise.all([listTemplates(userId, type), getLastUsed(userId), getSettings(userId)]);
  const initial = initialFormValues(last, settings)[type];
  return json(
    { user, account, type, templates, saving: params.get('save') === '1', carried: carriedSettings(params, type, initial) },
    { headers: privatePageHeaders },
  );
}

/** The page's two forms: delete a template, or save one (name, type and the type's settings). */
const templateFormSchema = (t: Translate) =>
  z.union([
    z.object({ intent: z.literal('delete'), id: z.string().default(''), type: z.string().optional() }),
    z
      .object({ intent: z.literal('save').optional() })
      .passthrough()
      .transform(({ intent: _intent, ...fields }, ctx) => {
        const parsed = parseNewTemplate(t, fields);
        if (parsed.ok) return { intent: 'save' as const, template: parsed.template };
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        return z.NEVER;
      }),
  ]);

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  // The generation form's Save Current without JavaScript: its values open the Save Template form.
  if (form.get(CARRY_FIELD) === '1') {
    const type = typeOf(typeof form.get('type') === 'string' ? String(form.get('type')) : null);
    return redirect(`${TEMPLATES_PAGE}?${new URLSearchParams({ type, save: '1', ...templateSettingsOfForm(type, form) })}`, 303);
  }
  const t = (await getT(request, 'inputs')) as Translate;
  const submission = parseWithZod(form, { schema: templateFormSchema(t), disableAutoCoercion: true });
  const fields = Object.fromEntries(
    Object.entries(submission.payload).filter(([k, v]) => typeof v === 'string' && k !== 'intent'),
  ) as Record<string, string>;
  const type = typeOf(fields.type ?? null);
  const back = `${TEMPLATES_PAGE}?type=${type}`;
  if (submission.status === 'success' && submission.value.intent === 'delete') {
    const deleted = await deleteTemplate(user.id, submission.value.id);
    return redirectWithToast(
      back,
      deleted
        ? { type: 'success', title: t('templates.deletedTitle') }
        : { type: 'error', title: t('templates.deleteFailedTitle'), description: t('templates.notFound') },
    );
  }
  if (submission.status !== 'success') {
    const errors: Record<string, string[] | null> = submission.error ?? {};
    const query = new URLSearchParams(Object.entries(fields).filter(([k]) => k !== 'name'));
    query.set('save', '1');
    return redirectWithToast(`${TEMPLATES_PAGE}?${query}`, {
      type: 'error',
      title: errors.name ? t('templates.nameRequiredTitle') : t('templates.saveFailedTitle'),
      description: Object.values(errors).find((messages) => messages?.length)?.[0],
    });
  }
  if (submission.value.intent !== 'save') return redirectWithToast(back, { type: 'error', title: t('templates.saveFailedTitle') });
  const created = await createTemplate(user.id, submission.value.template);
  if (!created.ok) {
    return redirectWithToast(back, {
      type: 'error',
      title: t('templates.saveFailedTitle'),
      description: t('templates.limit', { max: MAX_TEMPLATES_PER_USER }),
    });
  }
  return redirectWithToast(back, { type: 'success', title: t('templates.savedTitle') });
}

export default function TemplatesPage() {
  const { user, account, type, templates, saving, carried } = useLoaderData<typeof loader>();
  const { t } = useTranslation('inputs');
  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <AppLink to="/app" className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:underline">
        {t('templates.backToWorkspace')}
      </AppLink>
      <section
        aria-labelledby="templates-heading"
        className="mx-auto mt-4 max-w-2xl rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
      >
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <div className="flex items-center gap-2">
              <h1 id="templates-heading" className="text-xl font-semibold text-slate-900">
                {t('templates.title')}
              </h1>
              <TypeBadge type={type} />
            </div>
            <p className="mt-1 text-sm text-slate-600">{t('templates.description')}</p>
          </div>
          <nav aria-label={t('templates.listLabel')} className="flex gap-1">
            {(['text', 'image'] as const).map((kind) => (
              <AppLink
                key={kind}
                to={`${TEMPLATES_PAGE}?type=${kind}`}
                aria-current={kind === type ? 'page' : undefined}
                className={buttonClass(kind === type ? 'primary' : 'ghost', 'sm')}
              >
                <Icon name={kind === 'image' ? 'image' : 'file'} className="size-4" />
                {kind === 'image' ? t('templates.typeImage') : t('templates.typeText')}
              </AppLink>
            ))}
          </nav>
        </div>
        {saving ? (
          <div className="mt-6 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200">
            <h2 className="text-base font-semibold text-slate-900">{t('templates.saveDialogTitle')}</h2>
            <p className="mt-1 text-sm text-slate-600">
              {t('templates.saveDialogDescription', { type: type === 'image' ? t('templates.typeImage') : t('templates.typeText') })}
            </p>
            <SaveTemplateForm type={type} hidden={carried} cancelHref={`${TEMPLATES_PAGE}?type=${type}`} />
          </div>
        ) : (
          <div className="mt-4 flex justify-end">
            <AppLink to={`${TEMPLATES_PAGE}?type=${type}&save=1`} className={buttonClass('primary', 'sm')}>
              {t('templates.saveCurrent')}
            </AppLink>
          </div>
        )}
        <div className="mt-4">
          <TemplateList templates={templates} type={type} />
        </div>
      </section>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.appTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
