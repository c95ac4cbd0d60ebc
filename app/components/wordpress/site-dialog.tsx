import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { Form, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { FormAlert } from '~/components/auth-shell';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { UrlDialog } from '~/components/ui/dialog';
import { Field } from '~/components/ui/field';
import type { Translate } from '~/utils/auth-schemas';
import { siteSchema, siteUpdateSchema, testConnectionSchema } from '~/utils/wordpress-schemas';
import type { SiteItem } from './site-row';

/** The connection test's message, and what to do when it failed. */
type ConnectionTest = { success: boolean; message: string; seoPlugin?: boolean; diagnosis?: { hint: string } };

/** What the page's action answered the site form with: its errors, a test's outcome, a sealed tested password. */
export type SiteFormReply = {
  intent?: string;
  result?: SubmissionResult<string[]>;
  test?: ConnectionTest | null;
  testedPassword?: string | null;
};

/** The Test connection button (the dialog checks only what a test needs). */
const testIntent = z.object({ intent: z.literal('test') });

/** Add a site or edit one: address, user, application password, options, Test connection and Save. */
export function SiteDialog({ mode, site, reply }: { mode: 'create' | 'update'; site?: SiteItem; reply?: SiteFormReply }) {
  const { t } = useTranslation('wordpress');
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state !== 'idle' && navigation.formData?.get('intent') === intent;
  const lastResult = reply?.result;
  const test = reply?.test ?? null;
  const testedPassword = reply?.testedPassword ?? null;
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

/** Removing a site: asked first, in a dialog the URL holds (?delete=ID). */
export function SiteDeleteDialog({ site }: { site: SiteItem }) {
  const { t } = useTranslation('wordpress');
  return (
    <UrlDialog title={t('sites.deleteTitle')} closeTo="/wordpress" closeLabel={t('sites.close')}>
      <p className="mt-3 text-sm text-slate-700">{t('sites.deleteBody', { site: site.siteName })}</p>
      <Form method="post" action="/wordpress" className="mt-6 flex justify-end gap-3">
        <input type="hidden" name="siteId" value={site.id} />
        <ButtonLink to="/wordpress" variant="secondary" replace preventScrollReset>
          {t('sites.cancel')}
        </ButtonLink>
        <Button type="submit" name="intent" value="delete" variant="destructive">
          {t('sites.deleteConfirm')}
        </Button>
      </Form>
    </UrlDialog>
  );
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
