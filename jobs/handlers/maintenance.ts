import { purgeOldPageViews } from '~/services/analytics.server';
import { purgeExpiredRateLimits } from '~/services/rate-limit.server';
import { purgeExpiredSessions } from '~/services/sessions.server';
import { getLogger } from '~/utils/logger.server';

/** Deletes expired sessions, abuse-limit windows that can no longer limit anything, and page views past their retention. */
export async function handleMaintenancePurge(): Promise<void> {
  const [sessions, limits, pageViews] = await Promise.all([purgeExpiredSessions(), purgeExpiredRateLimits(), purgeOldPageViews()]);
  if (sessions || limits || pageViews) getLogger().info({ sessions, limits, pageViews }, 'purged expired rows');
}
