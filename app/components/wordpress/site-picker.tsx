import { Form } from '@remix-run/react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';

/**
 * The site select of the publish pages. Switching the site reloads its categories: a GET form that
 * submits itself on change with JavaScript and has a button without. `children` are the hidden
 * fields the page keeps across the switch.
 */
export function SitePicker({
  sites,
  siteId,
  children,
}: {
  sites: { id: number; siteName: string }[];
  siteId: number | null;
  children: ReactNode;
}) {
  const { t } = useTranslation('wordpress');
  return (
    <Form method="get" className="mt-4 flex items-end gap-2">
      {children}
      <label className="flex flex-1 flex-col gap-1.5 text-sm font-medium text-slate-800">
        {t('publish.site')}
        <select
          name="site"
          defaultValue={siteId ?? undefined}
          className={inputClass}
          onChange={(e) => e.currentTarget.form?.requestSubmit()}
        >
          {sites.map((s) => (
            <option key={s.id} value={s.id}>
              {s.siteName}
            </option>
          ))}
        </select>
      </label>
      <noscript>
        <Button type="submit" variant="secondary">
          {t('publish.switchSite')}
        </Button>
      </noscript>
    </Form>
  );
}
