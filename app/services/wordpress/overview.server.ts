import { sql, type Db } from '../../../db/client';
import { listResults } from '../results.server';
import { listSites } from './sites.server';
import { isPublishable, publicationsForResults, publicationView } from './publications.server';
import type { Publication } from './publication-record.server';
import { listScheduled } from './schedules.server';

export const INTEGRATION_RESULTS = 50;

/**
 * The workspace's WordPress integration tab: the sites, the latest completed text results (to pick
 * for publishing, each with its latest publication) and what is scheduled or recently finished.
 */
export async function integrationOverview(userId: string, timeZone: string, db: Db = sql) {
  const [sites, page, scheduled] = await Promise.all([
    listSites(userId, db),
    listResults(userId, { type: 'text', limit: 100, page: 1 }, db),
    listScheduled(userId, db),
  ]);
  const publishable = page.results.filter(isPublishable);
  const shown = publishable.slice(0, INTEGRATION_RESULTS);
  const publications = await publicationsForResults(
    userId,
    shown.map((r) => r.id),
    db,
  );
  return {
    sites: sites.map((s) => ({ id: s.id, siteName: s.siteName, isDefault: s.isDefault })),
    results: shown.map((r) => ({
      id: r.id,
      title: r.title?.trim() || r.prompt,
      createdAt: r.createdAt,
      publication: publicationView(publications.get(r.id)),
    })),
    more: publishable.length > shown.length || page.pagination.totalPages > 1,
    scheduled: {
      waiting: scheduled.waiting.slice(0, 100).map(scheduledView),
      recent: scheduled.recent.slice(0, 20).map(scheduledView),
    },
    timeZone,
  };
}

function scheduledView(p: Publication) {
  return { id: p.id, title: p.title, ...publicationView(p)! };
}
