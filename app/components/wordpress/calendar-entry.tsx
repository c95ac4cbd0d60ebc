import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Button } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { formatTime } from '~/utils/time-zone';
import { instantToZoned } from '~/utils/zoned-time';
import { shownStatus, type PostStatus } from '~/utils/publication-state';

export type CalendarEntry = {
  id: string;
  siteName: string;
  title: string;
  status: 'queued' | 'published' | 'failed' | 'canceled';
  postStatus?: PostStatus;
  /** It updates a post already on the site (not another post). */
  update?: boolean;
  publishAt: string;
  held: boolean;
  link: string | null;
};

const statusClass = {
  queued: 'bg-indigo-50 ring-indigo-200',
  published: 'bg-emerald-50 ring-emerald-200',
  failed: 'bg-red-50 ring-red-200',
  canceled: 'bg-slate-50 ring-slate-200',
} as const;

/**
 * One publication in a calendar day: its time, title, site and state; a waiting one opens (a
 * <details>, no script needed) to a move form (date and time in the calendar's zone) and a cancel form.
 */
export function CalendarEntryItem({ entry, timeZone }: { entry: CalendarEntry; timeZone: string }) {
  const { t, i18n } = useTranslation('wordpress');
  const local = instantToZoned(new Date(entry.publishAt), timeZone);
  const shown = shownStatus({ ...entry, updatesPost: entry.update });
  const state = entry.held ? t('calendar.held') : t(`publish.status.${shown}`);
  return (
    <li
      className={`rounded-md px-1.5 py-1 text-xs ring-1 ring-inset ${statusClass[entry.status]}`}
      data-testid="calendar-entry"
      data-status={entry.held ? 'held' : shown}
      data-update={entry.update ? 'true' : undefined}
    >
      <p className="text-slate-700">
        <time dateTime={entry.publishAt}>{formatTime(entry.publishAt, i18n.language, timeZone)}</time> · {entry.siteName}
      </p>
      <p className="break-words font-medium text-slate-900">{entry.title}</p>
      {entry.update ? <p className="text-slate-600">{t('calendar.update')}</p> : null}
      <p className="text-slate-700">
        {entry.link ? (
          <a href={entry.link} target="_blank" rel="noreferrer" className="text-indigo-700 underline">
            {state}
          </a>
        ) : (
          state
        )}
      </p>
      {entry.status === 'queued' ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-indigo-700">
            {t('calendar.change')}
            <span className="sr-only">: {entry.title}</span>
          </summary>
          <Form method="post" className="mt-1 flex flex-col gap-1">
            <input type="hidden" name="publicationId" value={entry.id} />
            <input type="hidden" name="tz" value={timeZone} />
            <label className="flex flex-col text-slate-700">
              {t('publish.date')}
              <input type="date" name="date" defaultValue={local.date} required className={`${inputClass} h-8 px-1 text-xs`} />
            </label>
            <label className="flex flex-col text-slate-700">
              {t('publish.time')}
              <input type="time" name="time" defaultValue={local.time} required className={`${inputClass} h-8 px-1 text-xs`} />
            </label>
            <Button type="submit" name="intent" value="move" size="sm" variant="secondary">
              {t('scheduled.move')}
            </Button>
          </Form>
          <Form method="post" className="mt-1">
            <input type="hidden" name="publicationId" value={entry.id} />
            <Button type="submit" name="intent" value="cancel" size="sm" variant="ghost" className="text-red-700">
              {t('scheduled.cancel')}
            </Button>
          </Form>
        </details>
      ) : null}
    </li>
  );
}
