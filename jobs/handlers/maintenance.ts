import { purgeOldPageViews } from '~/services/analytics.server';
import { purgeExpiredIdempotencyKeys } from '~/services/idempotency.server';
import { purgeExpiredRateLimits } from '~/services/rate-limit.server';
import { purgeExpiredSessions } from '~/services/sessions.server';
import { purgeTopicDrafts } from '~/services/topic-drafts.server';
import { getLogger } from '~/utils/logger.server';

/**
 * Deletes expired sessions, abuse-limit windows that can no longer limit anything, page views past
 * their retention, old topic drafts and Idempotency-Keys past their 24 hours.
 */
export async function handleMaintenancePurge(): Promise<void> {
  const [sessions, limits, pageViews, drafts, idempotencyKeys] = await Promise.all([
    purgeExpiredSessions(),
    purgeExpiredRateLimits(),
    purgeOldPageViews(),
    purgeTopicDrafts(),
    purgeExpiredIdempotencyKeys(),
  ]);
  if (sessions || limits || pageViews || drafts || idempotencyKeys)
    getLogger().info({ sessions, limits, pageViews, drafts, idempotencyKeys }, 'purged expired rows');
}
