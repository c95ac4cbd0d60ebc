import { purgeOldPageViews } from '~/services/analytics.server';
import { purgeExpiredRateLimits } from '~/services/rate-limit.server';
import { purgeExpiredSessions } from '~/services/sessions.server';
import { purgeTopicDrafts } from '~/services/topic-drafts.server';
import { getLogger } from '~/utils/logger.server';
import { jobSql } from '../../db/client';

/** Deletes expired sessions, abuse-limit windows that can no longer limit anything, page views past their retention and old topic drafts. */
export async function handleMaintenancePurge(): Promise<void> {
  const [sessions, limits, pageViews, drafts] = await Promise.all([
    purgeExpiredSessions(jobSql),
    purgeExpiredRateLimits(jobSql),
    purgeOldPageViews(jobSql),
    purgeTopicDrafts(jobSql),
  ]);
  if (sessions || limits || pageViews || drafts) getLogger().info({ sessions, limits, pageViews, drafts }, 'purged expired rows');
}
