import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { instantToZoned } from '~/utils/zoned-time';
import { PublicationError } from './publication-error';
import { ZonedTime } from './zoned-time';

export type ScheduledItem = {
  id: string;
  siteName: string;
  siteTimeZone: string | null;
  title: string;
  status: 'queued' | 'published' | 'failed' | 'canceled';
  publishAt: string;
  attempts: number;
  lastError: string | null;
  lastErrorCode: string | null;
  link: string | null;
  seoWritten?: boolean | null;
  kind?: 'post' | 'media';
};

const tone = { queued: 'brand', published: 'success', failed: 'warning', canceled: 'neutral' } as const;

/**
 * What waits to be published (cancel, move, or retry now one waiting on its backoff after
 * failures: plain forms) and what recently finished. Times name their zone, and the site's when it
 * differs; failures are explained in the reader's language with the site's own words as detail.
 */
export function ScheduledList({
  scheduled,
  timeZone,
}: {
  scheduled: { waiting: ScheduledItem[]; recent: ScheduledItem[] };
  timeZone: string;
}) {
  const { t } = useTranslation('wordpress');
  return (
    <section
      aria-labelledby="scheduled-title"
      className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
      data-testid="scheduled-list"
    >
      <h2 id="scheduled-title" className="text-lg font-semibold text-slate-900">
        {t('scheduled.title')}
      </h2>
      {scheduled.waiting.length === 0 ? <p className="mt-2 text-sm text-slate-700">{t('scheduled.empty')}</p> : null}
      <ul className="mt-4 divide-y divide-slate-200">
        {scheduled.waiting.map((item) => {
          const local = instantToZoned(new Date(item.publishAt), timeZone);
          return (
            <li
              key={item.id}
              className="flex flex-col gap-3 py-3 lg:flex-row lg:items-center lg:justify-between"
              data-testid="scheduled-row"
            >
              <div className="min-w-0">
                <p className="truncate font-medium text-slate-900">{item.title}</p>
                <p className="text-sm text-slate-600">
                  {item.siteName} · <ZonedTime iso={item.publishAt} timeZone={timeZone} siteTimeZone={item.siteTimeZone} />{' '}
                  <Badge tone={tone[item.status]}>{t(`publish.status.${item.status}`)}</Badge>
                </p>
                {item.lastError ? (
                  <p className="text-sm text-red-700">
                    {t('scheduled.attempts', { count: item.attempts })} · {t('scheduled.lastErrorLabel')}{' '}
                    <PublicationError code={item.lastErrorCode} raw={item.lastError} />
                  </p>
                ) : null}
              </div>
              <div className="flex flex-wrap items-end gap-2">
                <Form method="post" action="/wordpress" className="flex flex-wrap items-end gap-2">
                  <input type="hidden" name="publicationId" value={item.id} />
                  <input type="hidden" name="tz" value={timeZone} />
                  <label className="flex flex-col text-xs text-slate-700">
                    {t('publish.date')}
                    <input type="date" name="date" defaultValue={local.date} required className={`${inputClass} w-40`} />
                  </label>
                  <label className="flex flex-col text-xs text-slate-700">
                    {t('publish.time')}
                    <input type="time" name="time" defaultValue={local.time} required className={`${inputClass} w-28`} />
                  </label>
                  <Button type="submit" name="intent" value="move-scheduled" variant="secondary" size="sm">
                    {t('scheduled.move')}
                  </Button>
                </Form>
                {item.attempts > 0 ? (
                  <Form method="post" action="/wordpress">
                    <input type="hidden" name="publicationId" value={item.id} />
                    <Button type="submit" name="intent" value="retry-scheduled" size="sm">
                      {t('scheduled.retryNow')}
                    </Button>
                  </Form>
                ) : null}
                <Form method="post" action="/wordpress">
                  <input type="hidden" name="publicationId" value={item.id} />
                  <Button type="submit" name="intent" value="cancel-scheduled" variant="ghost" size="sm" className="text-red-700">
                    {t('scheduled.cancel')}
                  </Button>
                </Form>
              </div>
            </li>
          );
        })}
      </ul>
      {scheduled.recent.length ? (
        <>
          <h3 className="mt-6 text-sm font-semibold text-slate-900">{t('scheduled.recent')}</h3>
          <ul className="mt-2 divide-y divide-slate-200">
            {scheduled.recent.map((item) => (
              <li key={item.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm" data-testid="recent-row">
                <span className="min-w-0 truncate text-slate-900">
                  {item.title} <span className="text-slate-600">· {item.siteName}</span>
                </span>
                <span className="flex items-center gap-2">
                  <Badge tone={tone[item.status]}>{t(`publish.status.${item.status}`)}</Badge>
                  {item.status === 'failed' ? (
                    <span className="text-red-700">
                      <PublicationError code={item.lastErrorCode} raw={item.lastError} />
                    </span>
                  ) : null}
                  {item.link ? (
                    <a
                      href={item.link}
                      className="inline-flex min-h-6 items-center font-medium text-indigo-700 hover:underline"
                      target="_blank"
                      rel="noreferrer"
                    >
                      {item.kind === 'media' ? t('publish.viewImage') : t('publish.viewPost')}
                    </a>
                  ) : null}
                  {item.status === 'published' && item.seoWritten === false ? (
                    <span className="text-amber-800" data-testid="seo-not-written">
                      {t('seo.notWritten')}
                    </span>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
