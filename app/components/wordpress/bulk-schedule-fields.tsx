import { useTranslation } from 'react-i18next';
import { ErrorList, Field } from '~/components/ui/field';
import { inputClass } from '~/components/ui/input';
import { ZoneNote } from './zoned-time';

/** A form field as the bulk form's fields give it: its name, what it starts with, its errors. */
type FormField = { name: string; initialValue?: unknown; errors?: string[] };

/**
 * The spread schedule of a bulk publish: the first post's date and time in the user's time zone,
 * then one every N hours or days. Without JavaScript it is always shown (used when "spread" is chosen).
 */
export function BulkScheduleFields({
  fields,
  minDate,
  timeZone,
  site,
  now,
  hidden,
}: {
  fields: { startDate: FormField; startTime: FormField; every: FormField; unit: FormField };
  minDate: string;
  timeZone: string;
  site: { siteName: string; timeZone: string | null } | null;
  now: string;
  hidden: boolean;
}) {
  const { t } = useTranslation('wordpress');
  return (
    <fieldset className="flex flex-col gap-4 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200" data-testid="bulk-schedule" hidden={hidden}>
      <legend className="sr-only">{t('bulk.spread')}</legend>
      <div className="flex flex-wrap gap-4">
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('bulk.startDate')}
          <input
            type="date"
            name={fields.startDate.name}
            min={minDate}
            defaultValue={fields.startDate.initialValue as string | undefined}
            aria-invalid={fields.startDate.errors ? true : undefined}
            className={`${inputClass} w-44`}
          />
        </label>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('bulk.startTime')}
          <input
            type="time"
            name={fields.startTime.name}
            defaultValue={fields.startTime.initialValue as string | undefined}
            className={`${inputClass} w-32`}
          />
        </label>
      </div>
      <ErrorList errors={fields.startDate.errors} />
      <div className="flex flex-wrap items-end gap-2">
        <Field
          label={t('bulk.every')}
          className="w-32"
          inputProps={{
            name: fields.every.name,
            type: 'number',
            min: 1,
            max: 365,
            step: 1,
            defaultValue: fields.every.initialValue as string | undefined,
          }}
          errors={fields.every.errors}
        />
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          <span className="sr-only">{t('bulk.unit')}</span>
          <select name={fields.unit.name} defaultValue={(fields.unit.initialValue as string) ?? 'days'} className={`${inputClass} w-32`}>
            <option value="hours">{t('bulk.hours')}</option>
            <option value="days">{t('bulk.days')}</option>
          </select>
        </label>
      </div>
      <ZoneNote timeZone={timeZone} site={site} now={now} />
    </fieldset>
  );
}
