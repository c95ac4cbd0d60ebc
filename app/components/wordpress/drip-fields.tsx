import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Button } from '~/components/ui/button';
import { ErrorList } from '~/components/ui/field';
import { inputClass } from '~/components/ui/input';
import { formatDateTimeInZone } from '~/utils/time-zone';

// The drip schedule's part of the bulk publish page: the site's rules, then the
// planned dates to check before confirming. Both plain form fields: without JavaScript the page
// posts, renders the plan, and the confirmation is a second post of the same fields.

export type DripValues = {
  startDate: string;
  perDay: string;
  windowStart: string;
  windowEnd: string;
  weekdays: number[];
  spread: 'even' | 'random';
  timeZone: string;
};

// Monday first; the value is the weekday number the service uses (0 = Sunday).
const WEEK = [1, 2, 3, 4, 5, 6, 0] as const;

export function DripFields({
  values,
  minDate,
  errors,
  hidden,
}: {
  values: DripValues;
  minDate: string;
  errors: Record<string, string[] | undefined>;
  hidden: boolean;
}) {
  const { t } = useTranslation('wordpress');
  return (
    <fieldset className="flex flex-col gap-4 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200" data-testid="drip-fields" hidden={hidden}>
      <legend className="sr-only">{t('drip.mode')}</legend>
      <p className="text-sm text-slate-700">{t('drip.help')}</p>
      <div className="flex flex-wrap gap-4">
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('drip.startDate')}
          <input
            type="date"
            name="dripStartDate"
            min={minDate}
            defaultValue={values.startDate}
            aria-invalid={errors.dripStartDate ? true : undefined}
            className={`${inputClass} w-44`}
          />
        </label>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('drip.perDay')}
          <input
            type="number"
            name="perDay"
            min={1}
            max={48}
            step={1}
            defaultValue={values.perDay}
            aria-invalid={errors.perDay ? true : undefined}
            className={`${inputClass} w-28`}
          />
        </label>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('drip.windowStart')}
          <input type="time" name="windowStart" defaultValue={values.windowStart} className={`${inputClass} w-32`} />
        </label>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('drip.windowEnd')}
          <input
            type="time"
            name="windowEnd"
            defaultValue={values.windowEnd}
            aria-invalid={errors.windowEnd ? true : undefined}
            className={`${inputClass} w-32`}
          />
        </label>
      </div>
      <ErrorList
        errors={[...(errors.dripStartDate ?? []), ...(errors.perDay ?? []), ...(errors.windowStart ?? []), ...(errors.windowEnd ?? [])]}
      />
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">{t('drip.weekdays')}</legend>
        <div className="mt-2 flex flex-wrap gap-3">
          {WEEK.map((d) => (
            <label key={d} className="flex items-center gap-1.5 text-sm text-slate-800">
              <input type="checkbox" name="weekdays" value={d} defaultChecked={values.weekdays.includes(d)} className="size-4" />
              {t(`drip.day.${d}`)}
            </label>
          ))}
        </div>
        <ErrorList errors={errors.weekdays} />
      </fieldset>
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">{t('drip.spread')}</legend>
        <div className="mt-2 flex flex-col gap-2">
          {(['even', 'random'] as const).map((s) => (
            <label key={s} className="flex items-center gap-2 text-sm text-slate-800">
              <input type="radio" name="spread" value={s} defaultChecked={values.spread === s} className="size-4" />
              {t(`drip.spread_${s}`)}
            </label>
          ))}
        </div>
      </fieldset>
      <input type="hidden" name="dripTimeZone" value={values.timeZone} />
      <p className="text-xs text-slate-600" data-testid="drip-zone">
        {t('drip.zone', { zone: values.timeZone })}
      </p>
    </fieldset>
  );
}

export type DripPreviewData = {
  posts: { title: string; publishAt: string }[];
  fingerprint: string;
  seed: number;
  plannedAt: string;
  timeZone: string;
  /** The submitted fields, posted again by the confirmation. */
  fields: [string, string][];
  /** The plan came out differently from the one confirmed (time passed, or the site's days changed). */
  changed: boolean;
};

export function DripPreview({ preview, busy }: { preview: DripPreviewData; busy: boolean }) {
  const { t, i18n } = useTranslation('wordpress');
  return (
    <section
      aria-labelledby="drip-preview-title"
      className="mt-6 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-indigo-200"
      data-testid="drip-preview"
    >
      <h2 id="drip-preview-title" className="text-lg font-semibold text-slate-900">
        {t('drip.preview.title', { count: preview.posts.length })}
      </h2>
      {preview.changed ? (
        <p role="alert" className="mt-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-inset ring-amber-200">
          {t('drip.preview.changed')}
        </p>
      ) : null}
      <p className="mt-1 text-sm text-slate-700">{t('drip.zone', { zone: preview.timeZone })}</p>
      <table className="mt-4 w-full text-left text-sm">
        <caption className="sr-only">{t('drip.preview.caption')}</caption>
        <thead>
          <tr className="border-b border-slate-200 text-slate-700">
            <th scope="col" className="py-2 pr-3 font-medium">
              #
            </th>
            <th scope="col" className="py-2 pr-3 font-medium">
              {t('scheduled.post')}
            </th>
            <th scope="col" className="py-2 font-medium">
              {t('scheduled.when')}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {preview.posts.map((p, i) => (
            <tr key={`${i}-${p.publishAt}`} data-testid="drip-preview-row">
              <td className="py-1.5 pr-3 text-slate-600">{i + 1}</td>
              <td className="break-words py-1.5 pr-3 text-slate-900">{p.title}</td>
              <td className="whitespace-nowrap py-1.5">
                <time dateTime={p.publishAt}>{formatDateTimeInZone(p.publishAt, i18n.language, preview.timeZone)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Form method="post" className="mt-4 flex flex-wrap items-center justify-end gap-3">
        {preview.fields.map(([name, value], i) => (
          <input key={`${name}-${i}`} type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="seed" value={preview.seed} />
        <input type="hidden" name="plannedAt" value={preview.plannedAt} />
        <input type="hidden" name="fingerprint" value={preview.fingerprint} />
        <p className="text-sm text-slate-600">{t('drip.preview.change')}</p>
        <Button type="submit" name="intent" value="confirm" pending={busy}>
          {t('drip.preview.confirm', { count: preview.posts.length })}
        </Button>
      </Form>
    </section>
  );
}
