import { purgeOldPageViews } from '~/services/analytics.server';
import { purgeExpiredIdempotencyKeys } from '~/services/idempotency.server';
import { purgeExpiredRateLimits } from '~/services/rate-limit.server';
import { purgeExpiredSessions } from '~/services/sessions.server';
import { purgeTopicDrafts } from '~/services/topic-drafts.server';
import { getLogger } from '~/runtime/logger.server';
import { jobSql } from '../../db/client';

/**
 * Deletes expired sessions, abuse-limit windows that can no longer limit anything, page views past
 * their retention, old topic drafts and Idempotency-Keys past their 24 hours.
 */
export async function handleMaintenancePurge(): Promise<void> {
  const [sessions, limits, pageViews, drafts, idempotencyKeys] = await Promise.all([
    purgeExpiredSessions(jobSql),
    purgeExpiredRateLimits(jobSql),
    purgeOldPageViews(jobSql),
    purgeTopicDrafts(jobSql),
    purgeExpiredIdempotencyKeys(jobSql),
  ]);
  if (sessions || limits || pageViews || drafts || idempotencyKeys)
    getLogger().info({ sessions, limits, pageViews, drafts, idempotencyKeys }, 'purged expired rows');
}
