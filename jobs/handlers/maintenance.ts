import { purgeExpiredRateLimits } from '~/services/rate-limit.server';
import { purgeExpiredSessions } from '~/services/sessions.server';
import { getLogger } from '~/utils/logger.server';

/** Deletes expired sessions and abuse-limit windows that can no longer limit anything. */
export async function handleMaintenancePurge(): Promise<void> {
  const [sessions, limits] = await Promise.all([purgeExpiredSessions(), purgeExpiredRateLimits()]);
  if (sessions || limits) getLogger().info({ sessions, limits }, 'purged expired rows');
}
