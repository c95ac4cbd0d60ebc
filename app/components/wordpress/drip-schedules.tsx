import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { timeOf } from '~/utils/drip-plan';

export type DripScheduleItem = {
  siteId: number;
  siteName: string;
  perDay: number;
  windowStart: number;
  windowEnd: number;
  weekdays: number[];
  spread: 'even' | 'random';
  timeZone: string;
  pausedAt: string | null;
};

const WEEK = [1, 2, 3, 4, 5, 6, 0];

/**
 * Each site's drip schedule (its rules in words) with a Pause or Resume form. Paused: what comes due
 * waits; resuming plans the waiting posts again from now, in their order, under the same rules.
 */
export function DripSchedules({ schedules, timeZone, busy }: { schedules: DripScheduleItem[]; timeZone: string; busy: boolean }) {
  const { t } = useTranslation('wordpress');
  if (!schedules.length) return null;
  return (
    <section aria-labelledby="drip-schedules-title" className="mt-6 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <h2 id="drip-schedules-title" className="text-base font-semibold text-slate-900">
        {t('calendar.schedules')}
      </h2>
      <ul className="mt-2 divide-y divide-slate-100">
        {schedules.map((s) => (
          <li key={s.siteId} className="flex flex-wrap items-center justify-between gap-3 py-2" data-testid="drip-schedule">
            <div className="min-w-0 text-sm">
              <p className="flex items-center gap-2 font-medium text-slate-900">
                {s.siteName}
                <Badge tone={s.pausedAt ? 'warning' : 'success'}>
                  {s.pausedAt ? t('calendar.statePaused') : t('calendar.stateRunning')}
                </Badge>
              </p>
              <p className="text-slate-700">
                {t('calendar.rules', {
                  count: s.perDay,
                  start: timeOf(s.windowStart),
                  end: timeOf(s.windowEnd),
                  days: WEEK.filter((d) => s.weekdays.includes(d))
                    .map((d) => t(`drip.day.${d}`))
                    .join(t('calendar.daySeparator')),
                  spread: t(`drip.spread_${s.spread}`),
                  zone: s.timeZone,
                })}
              </p>
              {s.pausedAt ? <p className="text-amber-800">{t('calendar.pausedHelp')}</p> : null}
            </div>
            <Form method="post">
              <input type="hidden" name="siteId" value={s.siteId} />
              <input type="hidden" name="tz" value={timeZone} />
              {s.pausedAt ? (
                <Button type="submit" name="intent" value="resume" size="sm" disabled={busy}>
                  {t('calendar.resume')}
                  <span className="sr-only"> {s.siteName}</span>
                </Button>
              ) : (
                <Button type="submit" name="intent" value="pause" size="sm" variant="secondary" disabled={busy}>
                  {t('calendar.pause')}
                  <span className="sr-only"> {s.siteName}</span>
                </Button>
              )}
            </Form>
          </li>
        ))}
      </ul>
    </section>
  );
}
