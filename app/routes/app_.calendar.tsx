import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DripSchedules } from '~/components/wordpress/drip-schedules';
import { CalendarEntryItem } from '~/components/wordpress/calendar-entry';
import { buttonClass } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { detectLanguage, getT } from '~/i18n.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { explainError } from '~/http/errors.server';
import { readFormData } from '~/http/json-api.server';
import { redirectWithToast } from '~/http/toast.server';
import { requireUser } from '~/services/sessions.server';
import { calendar, moveScheduled, pauseDrip, resumeDrip } from '~/services/wordpress/drip.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { cancelPublication } from '~/services/wordpress/schedules.server';
import type { Translate } from '~/utils/auth-schemas';
import { moveSchema } from '~/utils/drip-schemas';
import { rootT } from '~/utils/meta';
import { dateTimeFormat } from '~/utils/intl-format';
import { formatDateTimeInZone, validTimeZone } from '~/utils/time-zone';
import { readerTimeZone } from '~/http/time-zone.server';
import { instantToZoned } from '~/utils/zoned-time';
import { AppLink } from '~/components/ui/app-link';

// The publishing calendar: /app/calendar?month=2026-12&site=3, a month of every
// scheduled (and published or failed) post per day and site, as a plain table. Each waiting post can
// be moved (a new date and time, checked against its drip schedule) or canceled; each site's drip
// schedule can be paused and resumed. Every control is a form answered by a redirect back here, so
// the page works without JavaScript; with it, Remix submits them in place.

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const url = new URL(request.url);
  const siteParam = Number(url.searchParams.get('site'));
  const siteId = Number.isSafeInteger(siteParam) && siteParam > 0 ? siteParam : null;
  const data = await calendar(userId, { month: url.searchParams.get('month'), siteId, readerZone: await readerTimeZone(request) });
  return json({ user, account, ...data, today: instantToZoned(new Date(), data.timeZone).date }, { headers: privatePageHeaders });
}

/** The page's forms, by their button (read as typed: no coercion). */
const siteNumber = z.unknown().transform((v) => Number(typeof v === 'string' ? v : 0));
const calendarFormSchema = (t: Translate) =>
  z.discriminatedUnion('intent', [
    moveSchema(t).extend({ intent: z.literal('move') }),
    z.object({ intent: z.literal('cancel'), publicationId: z.string().default('') }),
    z.object({ intent: z.literal('pause'), siteId: siteNumber }),
    z.object({ intent: z.literal('resume'), siteId: siteNumber, tz: z.string().default('') }),
  ]);

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  const url = new URL(request.url);
  const back = `/app/calendar${url.search}`;
  const submission = parseWithZod(formData, { schema: calendarFormSchema(t), disableAutoCoercion: true });
  if (submission.status !== 'success') {
    if (submission.payload.intent === 'move') {
      const first = Object.values(submission.error ?? {}).find((messages) => messages?.length)?.[0];
      return redirectWithToast(back, { type: 'error', title: t('calendar.moveFailed'), description: first });
    }
    return redirectWithToast(back, { type: 'error', title: t('publish.failed'), description: t('bulk.notFound') });
  }
  const input = submission.value;
  try {
    switch (input.intent) {
      case 'move': {
        const { publicationId, date, time, tz } = input;
        await moveScheduled(user.id, publicationId, date, time, validTimeZone(tz) ?? (await readerTimeZone(request, user)));
        return redirectWithToast(back, { type: 'success', title: t('scheduled.moved') });
      }
      case 'cancel':
        await cancelPublication(user.id, input.publicationId);
        return redirectWithToast(back, { type: 'success', title: t('scheduled.canceled') });
      case 'pause':
        await pauseDrip(user.id, input.siteId);
        return redirectWithToast(back, { type: 'success', title: t('calendar.paused') });
      case 'resume': {
        const zone = validTimeZone(input.tz) ?? (await readerTimeZone(request, user));
        const { replanned, first } = await resumeDrip(user.id, input.siteId);
        return redirectWithToast(back, {
          type: 'success',
          title: t('calendar.resumed'),
          description: first
            ? t('calendar.replanned', { count: replanned, date: formatDateTimeInZone(first, await detectLanguage(request), zone) })
            : undefined,
        });
      }
    }
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    const { message: description } = await explainError(error, t);
    return redirectWithToast(back, {
      type: 'error',
      title: input.intent === 'move' ? t('calendar.moveFailed') : t('publish.failed'),
      description,
    });
  }
}

/** The month's days as weeks of 7 (Monday first), null outside the month. */
function weeksOf(month: string): (string | null)[][] {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const lead = (new Date(Date.UTC(y, m - 1, 1)).getUTCDay() + 6) % 7;
  const cells: (string | null)[] = [
    ...Array.from({ length: lead }, () => null),
    ...Array.from({ length: days }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`),
  ];
  while (cells.length % 7) cells.push(null);
  return Array.from({ length: cells.length / 7 }, (_, w) => cells.slice(w * 7, w * 7 + 7));
}

function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + by, 1)).toISOString().slice(0, 7);
}

export default function Calendar() {
  const { user, account, month, siteId, timeZone, today, days, sites, schedules } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation('wordpress');
  const navigation = useNavigation();
  const query = (m: string) => `/app/calendar?month=${m}${siteId ? `&site=${siteId}` : ''}`;
  const [y, m] = month.split('-').map(Number) as [number, number];
  const title = dateTimeFormat(i18n.language, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, 1)));
  const weekday = dateTimeFormat(i18n.language, { weekday: 'short', timeZone: 'UTC' });
  const weekdayLong = dateTimeFormat(i18n.language, { weekday: 'long', timeZone: 'UTC' });
  const dayLabel = dateTimeFormat(i18n.language, { dateStyle: 'full', timeZone: 'UTC' });
  // An update of a post already on the site is not another post this month.
  const total = Object.values(days).reduce((n, list) => n + list.filter((e) => !e.update).length, 0);

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('calendar.title')}</h1>
          <p className="mt-1 text-sm text-slate-700" data-testid="calendar-zone">
            {t('calendar.zone', { zone: timeZone })}
          </p>
        </div>
        <Form method="get" className="flex flex-wrap items-end gap-2" data-testid="calendar-filter">
          <input type="hidden" name="month" value={month} />
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-800">
            {t('calendar.site')}
            <select name="site" defaultValue={siteId ?? ''} className={`${inputClass} w-56`}>
              <option value="">{t('calendar.allSites')}</option>
              {sites.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.siteName}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className={buttonClass('secondary', 'md')}>
            {t('calendar.show')}
          </button>
        </Form>
      </div>

      <DripSchedules schedules={schedules} timeZone={timeZone} busy={navigation.state !== 'idle'} />

      <nav aria-label={t('calendar.monthNav')} className="mt-6 flex items-center justify-between gap-3">
        <AppLink to={query(shiftMonth(month, -1))} className={buttonClass('ghost', 'sm')} rel="prev" preventScrollReset>
          ← {t('calendar.previous')}
        </AppLink>
        <h2 className="text-lg font-semibold text-slate-900" data-testid="calendar-month">
          {title}
        </h2>
        <AppLink to={query(shiftMonth(month, 1))} className={buttonClass('ghost', 'sm')} rel="next" preventScrollReset>
          {t('calendar.next')} →
        </AppLink>
      </nav>
      <p className="sr-only" aria-live="polite">
        {t('calendar.count', { count: total })}
      </p>
      {total === 0 ? <p className="mt-2 text-sm text-slate-700">{t('calendar.empty')}</p> : null}

      <div className="mt-4 overflow-x-auto rounded-2xl bg-white shadow-sm ring-1 ring-slate-200">
        <table className="w-full min-w-[56rem] table-fixed border-collapse text-sm" data-testid="calendar">
          <caption className="sr-only">{t('calendar.caption', { month: title })}</caption>
          <thead>
            <tr>
              {[0, 1, 2, 3, 4, 5, 6].map((i) => {
                // 2024-01-01 was a Monday.
                const d = new Date(Date.UTC(2024, 0, 1 + i));
                return (
                  <th key={i} scope="col" className="border-b border-slate-200 px-2 py-2 text-left font-medium text-slate-700">
                    <abbr title={weekdayLong.format(d)} className="no-underline">
                      {weekday.format(d)}
                    </abbr>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {weeksOf(month).map((week, w) => (
              <tr key={w}>
                {week.map((date, i) =>
                  date ? (
                    <td
                      key={date}
                      className={`h-28 border border-slate-100 p-1.5 align-top ${date === today ? 'bg-indigo-50/60' : ''}`}
                      data-testid="calendar-day"
                      data-date={date}
                      aria-current={date === today ? 'date' : undefined}
                    >
                      <p className="text-xs font-semibold text-slate-700">
                        {/* The day's number is seen, its full date heard: a <time> may not carry a label of its own. */}
                        <time dateTime={date}>
                          <span aria-hidden="true">{Number(date.slice(8))}</span>
                          <span className="sr-only">{dayLabel.format(new Date(`${date}T00:00:00Z`))}</span>
                        </time>
                      </p>
                      {days[date]?.length ? (
                        <ul className="mt-1 flex flex-col gap-1">
                          {days[date]!.map((entry) => (
                            <CalendarEntryItem key={entry.id} entry={entry} timeZone={timeZone} />
                          ))}
                        </ul>
                      ) : null}
                    </td>
                  ) : (
                    <td key={`empty-${w}-${i}`} className="border border-slate-100 bg-slate-50" aria-hidden="true" />
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.calendarTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
