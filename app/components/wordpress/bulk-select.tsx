import { Form } from '@remix-run/react';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClass } from '~/components/ui/button';
import { useHydrated } from '~/components/generation/use-hydrated';

/** The GET form the results' checkboxes belong to (through their `form` attribute). */
export const BULK_FORM_ID = 'bulk-publish-form';
export const BULK_PUBLISH_URL = '/app/publish-bulk';

/** A result's checkbox: part of the bulk form wherever it sits in the page (no nested forms). */
export function BulkCheckbox({ resultId, label }: { resultId: string; label: string }) {
  const { t } = useTranslation('wordpress');
  return (
    <label className={`${buttonClass('ghost', 'sm')} cursor-pointer gap-2 px-2`}>
      <input
        type="checkbox"
        name="ids"
        value={resultId}
        form={BULK_FORM_ID}
        className="size-4 rounded border-slate-300 text-indigo-600"
        data-testid="bulk-checkbox"
      />
      {t('row.select')}
      <span className="sr-only">{label}</span>
    </label>
  );
}

function checkboxes(): HTMLInputElement[] {
  return Array.from(document.querySelectorAll<HTMLInputElement>(`input[type="checkbox"][form="${BULK_FORM_ID}"]`));
}

/**
 * The bar that publishes the selected results: a plain GET form to the bulk publish page (works
 * without JavaScript); with it, a live count, select all and a disabled button while none is chosen.
 */
export function BulkPublishBar({ className = '', children }: { className?: string; children?: ReactNode }) {
  const { t } = useTranslation('wordpress');
  const hydrated = useHydrated();
  const [count, setCount] = useState(0);
  const [total, setTotal] = useState(0);

  useEffect(() => {
    const update = () => {
      const all = checkboxes();
      setTotal(all.length);
      setCount(all.filter((c) => c.checked).length);
    };
    update();
    document.addEventListener('change', update);
    return () => document.removeEventListener('change', update);
  }, []);

  const selectAll = (checked: boolean) => {
    for (const c of checkboxes()) c.checked = checked;
    setCount(checked ? checkboxes().length : 0);
  };

  return (
    <Form
      id={BULK_FORM_ID}
      method="get"
      action={BULK_PUBLISH_URL}
      className={`flex flex-wrap items-center gap-2 rounded-xl bg-indigo-50/60 px-3 py-2 ring-1 ring-indigo-100 ${className}`}
      data-testid="bulk-bar"
    >
      <p className="text-sm text-slate-700" data-testid="bulk-count">
        {hydrated ? t('bulk.selected', { count }) : t('bulk.selectHelp')}
      </p>
      {hydrated && total > 0 ? (
        <button type="button" className={buttonClass('ghost', 'sm')} onClick={() => selectAll(count < total)}>
          {count < total ? t('bulk.selectAll') : t('bulk.selectNone')}
        </button>
      ) : null}
      {children}
      <button type="submit" className={buttonClass('primary', 'sm', 'ml-auto')} disabled={hydrated && count === 0}>
        {t('bulk.publishSelected')}
      </button>
    </Form>
  );
}
