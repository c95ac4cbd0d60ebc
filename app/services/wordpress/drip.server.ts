import crypto from 'node:crypto';
import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { DripPlanError, planDrip, weekdayOf, type DripRules } from '~/utils/drip-plan';
import { validTimeZone } from '~/utils/time-zone';
import { instantToZoned, zonedToInstant } from '~/utils/zoned-time';
import { WordPressServiceError } from './errors.server';
import { getSite, listSites } from './sites.server';
import { getPublication } from './publications.server';
import type { Publication } from './publication-record.server';
import { reschedulePublication } from './schedules.server';
import { queueBulkPublications, type BulkPublishInput } from './bulk.server';
import { cancelPublishJobs, queueScheduleMirror } from './publish-queue.server';

// Drip schedules: a site's rules (wordpress_drip_schedules), the plans confirmed with
// them (wordpress_drip_plans: seed, rules, zone) and pause/resume. A plan's posts are ordinary
// publications with their own `wordpress-publish` job at their time (queueBulkPublications: one
// transaction, the same exactly-once publisher); this module only decides the times. Planning takes
// the site's row lock, so two plans for one site at once take turns and never share a day's N.

export type DripSchedule = DripRules & { siteId: number; timeZone: string; pausedAt: string | null };

type ScheduleRow = {
  site_id: string;
  per_day: number;
  window_start: number;
  window_end: number;
  weekdays: number[];
  spread: 'even' | 'random';
  time_zone: string;
  paused_at: Date | null;
};

function toSchedule(r: ScheduleRow): DripSchedule {
  return {
    siteId: Number(r.site_id),
    perDay: r.per_day,
    windowStart: r.window_start,
    windowEnd: r.window_end,
    weekdays: r.weekdays.map(Number),
    spread: r.spread,
    timeZone: r.time_zone,
    pausedAt: r.paused_at?.toISOString() ?? null,
  };
}

export async function getDripSchedule(userId: string, siteId: number, db: Db = sql): Promise<DripSchedule | null> {
  const [row] = await db<ScheduleRow[]>`
    SELECT site_id, per_day, window_start, window_end, weekdays, spread, time_zone, paused_at
    FROM wordpress_drip_schedules WHERE user_id = ${userId} AND site_id = ${siteId}`;
  return row ? toSchedule(row) : null;
}

export async function listDripSchedules(userId: string, db: Db = sql): Promise<DripSchedule[]> {
  const rows = await db<ScheduleRow[]>`
    SELECT site_id, per_day, window_start, window_end, weekdays, spread, time_zone, paused_at
    FROM wordpress_drip_schedules WHERE user_id = ${userId} ORDER BY site_id`;
  return rows.map(toSchedule);
}

/** Saves a site's rules (kept paused or running as it was). */
export async function saveDripSchedule(userId: string, siteId: number, rules: DripRules, timeZone: string, db: Db = sql): Promise<void> {
  await getSite(userId, siteId, db);
  await db`
    INSERT INTO wordpress_drip_schedules (site_id, user_id, per_day, window_start, window_end, weekdays, spread, time_zone)
    VALUES (${siteId}, ${userId}, ${rules.perDay}, ${rules.windowStart}, ${rules.windowEnd}, ${[...new Set(rules.weekdays)].sort()}::smallint[],
      ${rules.spread}, ${timeZone})
    ON CONFLICT (site_id) DO UPDATE SET per_day = EXCLUDED.per_day, window_start = EXCLUDED.window_start,
      window_end = EXCLUDED.window_end, weekdays = EXCLUDED.weekdays, spread = EXCLUDED.spread,
      time_zone = EXCLUDED.time_zone, updated_at = now()`;
}

export type DripRequest = Omit<BulkPublishInput, 'schedule' | 'drip'> & {
  rules: DripRules;
  timeZone: string;
  startDate: string;
  seed: number;
  /** The instant the preview was planned at: confirming plans from it again, so the same seed gives the same times. */
  plannedAt: Date;
};

export type PlannedPost = { resultId: string; title: string; publishAt: string };

/** A short fingerprint of a plan, carried from the preview to the confirmation. */
export function planFingerprint(posts: PlannedPost[]): string {
  const text = posts.map((p) => `${p.resultId}@${p.publishAt}`).join('|');
  return crypto.createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

// A confirmation must come within this long of its preview (after it, the preview is planned again).
const PREVIEW_LIFETIME_MS = 60 * 60_000;

/** A fresh seed for a random spread (stored with the plan). */
export function newSeed(): number {
  return crypto.randomInt(0, 2 ** 31 - 1);
}

/**
 * The planner's refusal as the service's: a new drip's rules (`plan`) leave no room or are not
 * valid; a resume's (`resume`) break the rules of the days it plans, as a move would.
 */
function plannerError(error: unknown, situation: 'plan' | 'resume'): never {
  if (!(error instanceof DripPlanError)) throw error;
  if (situation === 'plan') throw new WordPressServiceError(error.code === 'no_capacity' ? 'no_room' : 'bad_rules');
  throw new WordPressServiceError(error.code === 'no_capacity' ? 'no_capacity' : 'outside_rules');
}

/**
 * Publish times already on the site's days from `from` on (queued or published): they use up a
 * day's N. An update of a post already there is not another post and uses none.
 */
async function takenOnSite(siteId: number, from: Date, except: string[], db: Db): Promise<Date[]> {
  const rows = await db<{ publish_at: Date }[]>`
    SELECT publish_at FROM wordpress_publications
    WHERE site_id = ${siteId} AND status IN ('queued', 'published') AND publish_at >= ${new Date(from.getTime() - 2 * 86_400_000)}
      AND update_post_id IS NULL AND NOT (id = ANY(${except}::uuid[]))`;
  return rows.map((r) => r.publish_at);
}

class DryRun extends Error {
  constructor(readonly publications: Publication[]) {
    super('dry run');
  }
}

/**
 * Plans a drip schedule for the chosen results and queues it, or (`dryRun`) only says what it would
 * queue: the very same transaction rolled back, so the preview applies every rule the confirmation
 * will (Pro, owner, results already on the site, the day's N with what is there). Confirming with
 * `expect` (the preview's fingerprint) refuses (plan_changed) a plan that came out otherwise.
 */
export async function queueDrip(
  userId: string,
  input: DripRequest,
  opts: { dryRun?: boolean; expect?: string } = {},
): Promise<{ publications: Publication[]; fingerprint: string }> {
  const now = Date.now();
  if (input.plannedAt.getTime() > now + 60_000 || now - input.plannedAt.getTime() > PREVIEW_LIFETIME_MS) {
    if (opts.expect) throw new WordPressServiceError('plan_changed');
    input = { ...input, plannedAt: new Date(now) };
  }
  if (input.startDate < instantToZoned(input.plannedAt, input.timeZone).date) throw new WordPressServiceError('past_start');
  const bulk: BulkPublishInput = {
    siteId: input.siteId,
    resultIds: input.resultIds,
    categories: input.categories,
    tags: input.tags,
    perPost: input.perPost,
    featured: input.featured,
    qualityGate: input.qualityGate,
    onExisting: input.onExisting,
    postStatus: input.postStatus,
    schedule: null,
    drip: async (chosen, tx) => {
      await tx`SELECT id FROM wordpress_sites WHERE user_id = ${userId} AND id = ${input.siteId} FOR UPDATE`;
      const taken = await takenOnSite(input.siteId, input.plannedAt, [], tx);
      let times: Date[];
      try {
        times = planDrip({
          count: chosen.length,
          rules: input.rules,
          timeZone: input.timeZone,
          startDate: input.startDate,
          notBefore: input.plannedAt,
          seed: input.seed,
          taken,
        });
      } catch (error) {
        plannerError(error, 'plan');
      }
      const posts = chosen.map((r, i) => ({ resultId: r.id, title: r.title, publishAt: times[i]!.toISOString() }));
      // Confirmed later than a planned time (which would then go out at once), or the site's days
      // changed since the preview: the user sees the new plan first.
      if (opts.expect && (planFingerprint(posts) !== opts.expect || times.some((t) => t.getTime() < Date.now()))) {
        throw new WordPressServiceError('plan_changed');
      }
      await saveDripSchedule(userId, input.siteId, input.rules, input.timeZone, tx);
      const [plan] = await tx<{ id: string }[]>`
        INSERT INTO wordpress_drip_plans (user_id, site_id, seed, start_date, rules, time_zone)
        VALUES (${userId}, ${input.siteId}, ${input.seed}, ${input.startDate}, ${tx.json(input.rules)}, ${input.timeZone})
        RETURNING id`;
      return { times, planId: plan!.id };
    },
  };
  // Updates go out at once (no planned time), so only the planned posts make the fingerprint.
  const fingerprintOf = (pubs: Publication[]) =>
    planFingerprint(
      pubs.filter((p) => !p.updatesPost).map((p) => ({ resultId: p.resultId ?? '', title: p.title, publishAt: p.publishAt })),
    );
  if (!opts.dryRun) {
    const publications = await queueBulkPublications(userId, bulk);
    return { publications, fingerprint: fingerprintOf(publications) };
  }
  try {
    await sql.begin(async (tx) => {
      throw new DryRun(await queueBulkPublications(userId, bulk, tx));
    });
  } catch (error) {
    if (error instanceof DryRun) return { publications: error.publications, fingerprint: fingerprintOf(error.publications) };
    throw error;
  }
  throw new Error('unreachable');
}

/** Pauses a site's schedule: its plans' posts that come due are held (they stay queued). */
export async function pauseDrip(userId: string, siteId: number, db: Db = sql): Promise<void> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('no_schedule');
  await transaction(db, async (tx) => {
    const rows = await tx`
      UPDATE wordpress_drip_schedules SET paused_at = COALESCE(paused_at, now()), updated_at = now()
      WHERE user_id = ${userId} AND site_id = ${siteId} RETURNING site_id`;
    if (!rows.length) throw new WordPressServiceError('no_schedule');
    // Nothing may go out while paused: posts already on the site's schedule are taken off it (drafts
    // until resumed), or WP-Cron would publish them.
    const placed = await tx<{ id: string }[]>`
      SELECT id FROM wordpress_publications
      WHERE user_id = ${userId} AND site_id = ${siteId} AND status = 'queued' AND drip_plan_id IS NOT NULL AND wp_post_id IS NOT NULL`;
    await queueScheduleMirror(
      placed.map((p) => p.id),
      tx,
    );
  });
}

/**
 * Resumes a site's schedule. When a post of its plans came due while paused (it was held), every
 * post of its plans still waiting is planned again, in its order, from now under the site's current
 * rules, each with a new job (the old ones canceled): what was held goes out in the next windows
 * without breaking N, and the rest follow. When none came due, nothing moves (their jobs still wait).
 */
export async function resumeDrip(userId: string, siteId: number, db: Db = sql): Promise<{ replanned: number; first: string | null }> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('no_schedule');
  const { jobs, replanned, first } = await transaction(db, async (tx) => {
    await tx`SELECT id FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId} FOR UPDATE`;
    const schedule = await getDripSchedule(userId, siteId, tx);
    if (!schedule) throw new WordPressServiceError('no_schedule');
    await tx`UPDATE wordpress_drip_schedules SET paused_at = NULL, updated_at = now() WHERE site_id = ${siteId}`;
    const waiting = await tx<{ id: string; job_id: string | null; publish_at: Date }[]>`
      SELECT id, job_id, publish_at FROM wordpress_publications
      WHERE user_id = ${userId} AND site_id = ${siteId} AND status = 'queued' AND drip_plan_id IS NOT NULL
      ORDER BY publish_at, created_at FOR UPDATE`;
    const now = new Date();
    // Back on the site's schedule (at their new times when planned again below).
    await queueScheduleMirror(
      waiting.map((w) => w.id),
      tx,
    );
    if (!waiting.some((w) => w.publish_at.getTime() <= now.getTime())) return { jobs: [] as string[], replanned: 0, first: null };
    const ids = waiting.map((w) => w.id);
    let times: Date[];
    try {
      times = planDrip({
        count: waiting.length,
        rules: schedule,
        timeZone: schedule.timeZone,
        startDate: instantToZoned(now, schedule.timeZone).date,
        notBefore: now,
        seed: newSeed(),
        taken: await takenOnSite(siteId, now, ids, tx),
      });
    } catch (error) {
      plannerError(error, 'resume');
    }
    const newJobs: { id: string; payload: { publicationId: string }; startAfter?: Date }[] = [];
    for (const [i, w] of waiting.entries()) {
      const jobId = crypto.randomUUID();
      await tx`UPDATE wordpress_publications SET publish_at = ${times[i]!}, job_id = ${jobId}, updated_at = now() WHERE id = ${w.id}`;
      newJobs.push({ id: jobId, payload: { publicationId: w.id }, startAfter: times[i]! });
    }
    await enqueueMany('wordpress-publish', newJobs, tx);
    return {
      jobs: waiting.map((w) => w.job_id).filter((j): j is string => Boolean(j)),
      replanned: waiting.length,
      first: times[0]!.toISOString(),
    };
  });
  // The handler also compares the job id, so an old job that was already running stands down.
  await cancelPublishJobs(jobs);
  return { replanned, first };
}

/**
 * Moves a waiting publication (the calendar) to a date and time in `timeZone`: not in the past, and
 * for a drip publication inside its site's window, on a chosen weekday, within the day's N.
 */
export async function moveScheduled(
  userId: string,
  id: string,
  date: string,
  time: string,
  timeZone: string,
  db: Db = sql,
): Promise<Publication> {
  const at = zonedToInstant(date, time, timeZone);
  if (!at) throw new WordPressServiceError('outside_rules');
  if (at.getTime() < Date.now() - 60_000) throw new WordPressServiceError('past_time');
  return transaction(db, async (tx) => {
    const pub = await getPublication(userId, id, tx);
    if (pub.status !== 'queued' || pub.siteId === null) throw new WordPressServiceError('not_queued');
    const [{ drip_plan_id } = { drip_plan_id: null }] = await tx<{ drip_plan_id: string | null }[]>`
      SELECT drip_plan_id FROM wordpress_publications WHERE id = ${id}`;
    const schedule = drip_plan_id ? await getDripSchedule(userId, pub.siteId, tx) : null;
    // An update of a post already on the site is not another post: no day's N to keep.
    const counts = !pub.updatesPost;
    if (schedule) {
      await tx`SELECT id FROM wordpress_sites WHERE id = ${pub.siteId} FOR UPDATE`;
      const local = instantToZoned(at, schedule.timeZone);
      const minutes = Number(local.time.slice(0, 2)) * 60 + Number(local.time.slice(3));
      if (minutes < schedule.windowStart || minutes >= schedule.windowEnd || !schedule.weekdays.includes(weekdayOf(local.date))) {
        throw new WordPressServiceError('outside_rules');
      }
      const sameDay = (await takenOnSite(pub.siteId, at, [id], tx)).filter((t) => instantToZoned(t, schedule.timeZone).date === local.date);
      if (counts && sameDay.length >= schedule.perDay) throw new WordPressServiceError('no_capacity');
    }
    return reschedulePublication(userId, id, at, tx);
  });
}

export type CalendarEntryData = {
  id: string;
  siteId: number | null;
  siteName: string;
  title: string;
  status: Publication['status'];
  /** The post's status on the site (a draft or pending post is not published). */
  postStatus: Publication['postStatus'];
  /** It updates a post already on the site: not another post (not in the month's count). */
  update: boolean;
  publishAt: string;
  /** Its site's drip schedule is paused: it waits for a resume. */
  held: boolean;
  link: string | null;
};

/** "2026-12" -> the month, or the current one (in the zone) when missing or not a month. */
export function calendarMonth(month: string | null, timeZone: string): string {
  if (month && /^\d{4}-(0[1-9]|1[0-2])$/.test(month) && Number(month.slice(0, 4)) >= 2000 && Number(month.slice(0, 4)) <= 2100)
    return month;
  return instantToZoned(new Date(), timeZone).date.slice(0, 7);
}

/**
 * A month of publications (waiting, published, failed; not canceled) of one site or all the user's
 * sites, by local day: the site's drip zone (or its own) when one site is shown, since its N counts
 * by those days, else the reader's. Days are YYYY-MM-DD keys; entries in time order.
 */
export async function calendar(userId: string, q: { month: string | null; siteId: number | null; readerZone: string }, db: Db = sql) {
  const [sites, schedules] = await Promise.all([listSites(userId, db), listDripSchedules(userId, db)]);
  const site = q.siteId ? sites.find((s) => s.id === q.siteId) : undefined;
  const schedule = site ? schedules.find((s) => s.siteId === site.id) : undefined;
  const timeZone = validTimeZone(schedule?.timeZone ?? site?.timeZone) ?? q.readerZone;
  const month = calendarMonth(q.month, timeZone);
  const [y, m] = month.split('-').map(Number) as [number, number];
  const first = `${month}-01`;
  const next = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
  // A day either side: the zone decides which local day an instant is on.
  const from = new Date(Date.parse(`${first}T00:00:00Z`) - 86_400_000);
  const to = new Date(Date.parse(`${next}T00:00:00Z`) + 86_400_000);
  const rows = await db<
    {
      id: string;
      site_id: string | null;
      site_name: string;
      title: string;
      status: Publication['status'];
      wp_status: Publication['postStatus'];
      update: boolean;
      publish_at: Date;
      wp_link: string | null;
      held: boolean;
    }[]
  >`
    SELECT p.id, p.site_id, p.site_name, p.title, p.status, p.wp_status, p.update_post_id IS NOT NULL AS update, p.publish_at, p.wp_link,
      (p.status = 'queued' AND p.drip_plan_id IS NOT NULL AND d.paused_at IS NOT NULL) AS held
    FROM wordpress_publications p LEFT JOIN wordpress_drip_schedules d ON d.site_id = p.site_id
    WHERE p.user_id = ${userId} AND p.status IN ('queued', 'published', 'failed')
      -- A post updated in place is already on the calendar where it was first published.
      AND NOT (p.status = 'published' AND p.update_post_id IS NOT NULL)
      AND p.publish_at >= ${from} AND p.publish_at < ${to}
      ${site ? db`AND p.site_id = ${site.id}` : db``}
    ORDER BY p.publish_at, p.created_at
    LIMIT 5000`;
  const days: Record<string, CalendarEntryData[]> = {};
  for (const r of rows) {
    const date = instantToZoned(r.publish_at, timeZone).date;
    if (date < first || date >= next) continue;
    (days[date] ??= []).push({
      id: r.id,
      siteId: r.site_id === null ? null : Number(r.site_id),
      siteName: r.site_name,
      title: r.title,
      status: r.status,
      postStatus: r.wp_status,
      update: r.update,
      publishAt: r.publish_at.toISOString(),
      held: r.held,
      link: r.wp_link,
    });
  }
  return {
    month,
    siteId: site?.id ?? null,
    timeZone,
    days,
    sites: sites.map((s) => ({ id: s.id, siteName: s.siteName })),
    schedules: schedules.map((s) => ({ ...s, siteName: sites.find((x) => x.id === s.siteId)?.siteName ?? '' })),
  };
}
