import { sql, transaction, type Db } from '../../../db/client';
import { instantToZoned, zonedToInstant } from '~/utils/zoned-time';
import type { PostStatus } from '~/utils/publication-state';
import { getResult, type Result } from '../results.server';
import { WordPressServiceError } from './errors.server';
import { getSite, listSites } from './sites.server';
import { resultImage } from './media.server';
import {
  existingPublications,
  isPublishable,
  lockResultOnSite,
  queuePublications,
  requirePro,
  type PublishRequest,
} from './publications.server';
import type { Publication } from './publication-record.server';

// Bulk publish: many results to one site, all now or spread over time (or timed by a drip plan,
// drip.server.ts), in one transaction.

/** Spread publish times: the first at start, then one every `every` hours or days. */
export function spreadSchedule(start: Date, count: number, every: number, unit: 'hours' | 'days'): Date[] {
  const step = every * (unit === 'hours' ? 3_600_000 : 86_400_000);
  return Array.from({ length: count }, (_, i) => new Date(start.getTime() + i * step));
}

/**
 * Publish times of a bulk schedule in the user's time zone: the first at `start`, then one every
 * `every` hours (exact hours) or days (the same wall-clock time each day, across daylight saving).
 */
export function zonedSchedule(start: Date, count: number, every: number, unit: 'hours' | 'days', timeZone: string): Date[] {
  if (unit === 'hours') return spreadSchedule(start, count, every, 'hours');
  const wall = instantToZoned(start, timeZone);
  const [y, m, d] = wall.date.split('-').map(Number) as [number, number, number];
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(Date.UTC(y, m - 1, d + i * every)).toISOString().slice(0, 10);
    return zonedToInstant(day, wall.time, timeZone) ?? new Date(start.getTime() + i * every * 86_400_000);
  });
}

/**
 * The bulk publish page's selection: the user's sites and, of the chosen results (in their order),
 * the publishable ones and how many are not. Null when an id is not one of the user's results.
 */
export async function bulkSelection(userId: string, resultIds: string[], db: Db = sql) {
  const sites = await listSites(userId, db);
  // Each with what it was asked for (topic, focus keyword): results with one title stay apart.
  const results: { id: string; title: string; topic: string; keyword: string | null }[] = [];
  let skipped = 0;
  for (const id of resultIds) {
    const result = await getResult(userId, id, db).catch(() => null);
    if (!result) return null;
    if (isPublishable(result))
      results.push({
        id: result.id,
        title: result.title?.trim() || result.prompt,
        topic: result.prompt,
        keyword: result.seo?.focusKeyword || null,
      });
    else skipped++;
  }
  return { sites, results, skipped };
}

export type BulkPublishInput = {
  siteId: number;
  /** In this order; each at most once. */
  resultIds: string[];
  /** Null: all now. Otherwise the first post's time, then one every `every` `unit`. */
  schedule: { start: Date; every: number; unit: 'hours' | 'days'; timeZone: string } | null;
  categories: number[];
  tags: string[];
  /** Results with categories and tags of their own (reviewed choices): these replace the shared ones. */
  perPost?: Record<string, { categories: number[]; tags: string[] }>;
  /** Each result's generated image (if it has one) as its featured image. */
  featured: boolean;
  /** Publish only the posts whose quality report passes, or that their owner approved. */
  qualityGate?: boolean;
  /**
   * For results already on the site (published, or waiting to be): update their post, publish a
   * new one, or leave them out. Unset: refused (already_published) when there is any.
   */
  onExisting?: 'update' | 'new' | 'skip';
  /** The posts' status on the site: published (default), drafts, or pending review. */
  postStatus?: PostStatus;
  /** A drip schedule instead: plans the chosen results' times inside this transaction (drip.server.ts). */
  drip?: DripTimes;
};

/** The times of the chosen results (in order) and the drip plan they belong to. */
export type DripTimes = (chosen: { id: string; title: string }[], tx: Db) => Promise<{ times: Date[]; planId: string }>;

/**
 * Bulk publish: one publication per result, rows and `wordpress-publish` jobs (each with
 * its startAfter) in ONE transaction. Pro and Pro (Ending) only; a result of another user (or none)
 * is "not found" and nothing is queued; a result that is not a completed text is refused.
 */
export async function queueBulkPublications(userId: string, input: BulkPublishInput, db: Db = sql): Promise<Publication[]> {
  const ids = [...new Set(input.resultIds)];
  if (ids.length === 0) return [];
  if (input.schedule) {
    // The first post may not be before today (the date picker's rule), in the user's time zone.
    const today = instantToZoned(new Date(), input.schedule.timeZone).date;
    if (instantToZoned(input.schedule.start, input.schedule.timeZone).date < today) throw new WordPressServiceError('past_start');
  }
  return transaction(db, async (tx) => {
    await requirePro(userId, tx);
    await getSite(userId, input.siteId, tx);
    const results: Result[] = [];
    for (const id of ids) {
      const result = await getResult(userId, id, tx).catch(() => null);
      if (!result) throw new WordPressServiceError('result_not_found');
      if (!isPublishable(result)) throw new WordPressServiceError('not_publishable');
      results.push(result);
    }
    // The same rule as one publish (and the same locks, taken in a fixed order): a result already on
    // the site is updated, published again or left out only as the user chose.
    for (const id of [...ids].sort()) await lockResultOnSite(userId, id, input.siteId, tx);
    const existing = await existingPublications(userId, ids, input.siteId, tx);
    if (existing.size > 0 && !input.onExisting) {
      const many = [...existing.values()];
      throw new WordPressServiceError('already_published', 'already_published', many[0], many);
    }
    const updates = new Map<string, number>();
    const chosen = results.filter((r) => {
      const earlier = existing.get(r.id);
      if (!earlier || input.onExisting === 'new') return true;
      if (input.onExisting === 'skip') return false;
      // update: a post to update, or (still waiting) the waiting publication will make it.
      if (earlier.status !== 'published' || earlier.postId === null) return false;
      updates.set(r.id, earlier.postId);
      return true;
    });
    // A drip plans new posts only: an update of a post already on the site is not another post, so
    // it takes no day's slot and goes out at once.
    const planned = input.drip ? chosen.filter((r) => !updates.has(r.id)) : chosen;
    const dripped = input.drip
      ? await input.drip(
          planned.map((r) => ({ id: r.id, title: r.title?.trim() || r.prompt })),
          tx,
        )
      : null;
    const plannedTimes = dripped
      ? dripped.times
      : input.schedule
        ? zonedSchedule(input.schedule.start, chosen.length, input.schedule.every, input.schedule.unit, input.schedule.timeZone)
        : null;
    const timeOf = new Map(plannedTimes ? planned.map((r, i) => [r.id, plannedTimes[i]!]) : []);
    const requests: PublishRequest[] = [];
    for (const r of chosen) {
      requests.push({
        updatePostId: updates.get(r.id) ?? null,
        siteId: input.siteId,
        resultId: r.id,
        title: r.title?.trim() || r.prompt,
        content: r.content ?? '',
        excerpt: '',
        categories: input.perPost?.[r.id]?.categories ?? input.categories,
        tags: input.perPost?.[r.id]?.tags ?? input.tags,
        publishAt: timeOf.get(r.id) ?? null,
        dripPlanId: dripped && timeOf.has(r.id) ? dripped.planId : null,
        wpStatus: input.postStatus ?? 'publish',
        featuredImage: input.featured ? await resultImage(userId, r.id, tx) : null,
        seo: r.seo,
        qualityGate: input.qualityGate === true,
      });
    }
    return queuePublications(userId, requests, tx);
  });
}
