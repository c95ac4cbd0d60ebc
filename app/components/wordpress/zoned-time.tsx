import { useTranslation } from 'react-i18next';
import { useSettingsLinks } from '~/components/settings-param';
import { formatDateTimeInZone } from '~/utils/time-zone';
import { instantToZoned } from '~/utils/zoned-time';
import { AppLink } from '~/components/ui/app-link';

/**
 * A publishing time in the reader's zone, named; and, when the WordPress site's own zone shows
 * another wall-clock time, that too ("… · 1:30 AM UTC on the site"), so nobody schedules by the
 * wrong clock.
 */
export function ZonedTime({ iso, timeZone, siteTimeZone }: { iso: string; timeZone: string; siteTimeZone?: string | null }) {
  const { t, i18n } = useTranslation('wordpress');
  const at = new Date(iso);
  const differs = Boolean(siteTimeZone) && !sameWallClock(at, timeZone, siteTimeZone!);
  return (
    <>
      <time dateTime={iso} data-testid="zoned-time">
        {formatDateTimeInZone(at, i18n.language, timeZone)}
      </time>
      {differs ? (
        <span className="text-slate-600" data-testid="site-time">
          {' '}
          · {t('time.onSite', { time: formatDateTimeInZone(at, i18n.language, siteTimeZone!) })}
        </span>
      ) : null}
    </>
  );
}

function sameWallClock(at: Date, a: string, b: string): boolean {
  const x = instantToZoned(at, a);
  const y = instantToZoned(at, b);
  return x.date === y.date && x.time === y.time;
}

/**
 * Under a date and time picker: the zone the times are read in (the user's), with a link to change
 * it in the settings, and the site's own zone with its current time when it shows another clock.
 * `now` comes from the loader, so the server render and the browser agree.
 */
export function ZoneNote({
  timeZone,
  site,
  now,
}: {
  timeZone: string;
  site?: { siteName: string; timeZone: string | null } | null;
  now: string;
}) {
  const { t, i18n } = useTranslation('wordpress');
  const { openHref } = useSettingsLinks();
  const siteZone = site?.timeZone;
  const differs = Boolean(siteZone) && !sameWallClock(new Date(now), timeZone, siteZone!);
  return (
    <div className="basis-full text-xs text-slate-600" data-testid="zone-note">
      <p>
        {t('time.yourZone', { zone: timeZone })}{' '}
        <AppLink to={openHref} preventScrollReset className="font-medium text-indigo-700 hover:underline">
          {t('time.change')}
        </AppLink>
      </p>
      {differs ? (
        <p data-testid="site-zone">
          {t('time.siteZone', { site: site!.siteName, zone: siteZone, now: formatDateTimeInZone(now, i18n.language, siteZone!) })}
        </p>
      ) : null}
    </div>
  );
}
