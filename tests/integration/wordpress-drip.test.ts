import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { pauseDrip, queueDrip, resumeDrip } from '../../app/services/wordpress/drip.server';
import { timeOf, weekdayOf, type DripRules } from '../../app/utils/drip-plan';
import { instantToZoned } from '../../app/utils/zoned-time';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { createGenUser } from '../support/generation';
import { saveApiKeys } from '../../app/services/api-keys.server';

// Drip schedules against the real WordPress of the test harness: a 200-post plan
// published on a fast clock through the one publisher (runPublication, the job's due check), each
// post exactly once, never before its time, every planned time inside its window (a New York window
// holding the skipped hour of 14 March 2027) and never more than N on a local day; pause holds and
// resume plans again; the bulk page's preview and confirmation and the calendar as plain forms.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let app: TestApp;
let wp: WordPressSite;

type Account = { id: string; client: TestClient; siteId: number };

async function account(label: string, timeZone: string | null = null): Promise<Account> {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status)
    VALUES (${`wp-drip-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`}, ${label}, 'pro') RETURNING id`;
  const client = new TestClient(app.url);
  const { setCookie } = await createSession(u!.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  const site = await createSite(u!.id, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
  if (timeZone) await sql`UPDATE wordpress_sites SET time_zone = ${timeZone} WHERE id = ${site.id}`;
  return { id: u!.id, client, siteId: site.id };
}

async function results(userId: string, label: string, count: number): Promise<string[]> {
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', ${count}) RETURNING id`;
  const rows = await sql<{ id: string }[]>`
    INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at)
    SELECT ${userId}, ${run!.id}, i, 'text', 'topic ' || i, ${label} || ' ' || i, '<p>Body of ' || ${label} || ' ' || i || '</p>', 'completed', 'm', 1,
      now() - make_interval(secs => ${count} - i)
    FROM generate_series(1, ${count}) AS i ORDER BY i RETURNING id`;
  return rows.map((r) => r.id);
}

type Row = {
  id: string;
  result_id: string;
  publish_at: Date;
  status: string;
  job_id: string;
  drip_plan_id: string | null;
  wp_post_id: string | null;
};
const publicationsOf = (userId: string) =>
  sql<Row[]>`SELECT id, result_id, publish_at, status, job_id, drip_plan_id, wp_post_id FROM wordpress_publications
    WHERE user_id = ${userId} AND status <> 'canceled' ORDER BY publish_at, id`;

/** Every planned time inside the rules, by the zone's wall clock; at most N a local day. */
function expectWithinRules(times: Date[], rules: DripRules, timeZone: string) {
  const perDay = new Map<string, number>();
  for (const at of times) {
    const local = instantToZoned(at, timeZone);
    expect(local.time >= timeOf(rules.windowStart) && local.time < timeOf(rules.windowEnd), `${at.toISOString()} is ${local.time}`).toBe(
      true,
    );
    expect(rules.weekdays).toContain(weekdayOf(local.date));
    perDay.set(local.date, (perDay.get(local.date) ?? 0) + 1);
  }
  for (const n of perDay.values()) expect(n).toBeLessThanOrEqual(rules.perDay);
  return perDay;
}

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

function hiddenFields(html: string, from: string): [string, string][] {
  const part = html.slice(html.indexOf(from));
  const form = part.slice(0, part.indexOf('</form>'));
  return [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
    m[1]!,
    m[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, '&'),
  ]);
}

function post(client: TestClient, path: string, fields: [string, string][]) {
  return client.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

beforeAll(async () => {
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await wp?.stop();
});

describe('drip schedules', () => {
  it('200 posts on a fast clock: each published exactly once, never early, none outside its window, never more than N a day', async () => {
    const zone = 'America/New_York';
    const pro = await account('two-hundred', zone);
    const ids = await results(pro.id, 'Drip two hundred', 200);
    // Sundays, Tuesdays, Thursdays and Saturdays, 01:30-03:30: on Sunday 14 March 2027 the clocks
    // jump from 02:00 to 03:00 inside the window.
    const rules: DripRules = { perDay: 6, windowStart: 90, windowEnd: 210, weekdays: [0, 2, 4, 6], spread: 'random' };
    const { publications } = await queueDrip(pro.id, {
      siteId: pro.siteId,
      resultIds: ids,
      categories: [],
      tags: [],
      featured: false,
      rules,
      timeZone: zone,
      startDate: '2027-03-01',
      seed: 12345,
      plannedAt: new Date(),
    });
    expect(publications.map((p) => p.resultId)).toEqual(ids);
    const times = publications.map((p) => new Date(p.publishAt));
    expect(times.map(Number)).toEqual([...times.map(Number)].sort((a, b) => a - b));
    const perDay = expectWithinRules(times, rules, zone);
    expect(perDay.get('2027-03-14')).toBeGreaterThan(0);
    expect(instantToZoned(times[0]!, zone).date >= '2027-03-01').toBe(true);
    // The plan keeps its seed; each post has its own job waiting for its time.
    const rows = await publicationsOf(pro.id);
    const [plan] = await sql<
      { seed: number; site_id: string }[]
    >`SELECT seed, site_id FROM wordpress_drip_plans WHERE id = ${rows[0]!.drip_plan_id}`;
    expect(plan).toMatchObject({ seed: 12345, site_id: String(pro.siteId) });
    const jobs = await sql<{ id: string; start_after: Date }[]>`
      SELECT id, start_after FROM pgboss.job WHERE name = 'wordpress-publish' AND id = ANY(${rows.map((r) => r.job_id)}::uuid[])`;
    expect(jobs).toHaveLength(200);
    const jobAt = new Map(jobs.map((j) => [j.id, j.start_after.getTime()]));
    for (const r of rows) expect(jobAt.get(r.job_id)).toBe(r.publish_at.getTime());

    // The fast clock: each local day's posts fall due at the day's last planned time. On every
    // tick the due ones are delivered twice (a retried job), and the next day's ones early once.
    const days = [...new Set(rows.map((r) => instantToZoned(r.publish_at, zone).date))];
    const outcomes = new Map<string, string[]>();
    for (const [i, day] of days.entries()) {
      const due = rows.filter((r) => instantToZoned(r.publish_at, zone).date === day);
      const now = Math.max(...due.map((r) => r.publish_at.getTime()));
      const early = rows.filter((r) => instantToZoned(r.publish_at, zone).date === days[i + 1]);
      for (const r of early) expect(await runPublication(r.id, { jobId: r.job_id, now })).toBe('skipped');
      await inBatches(due, 4, async (r) => {
        const first = await runPublication(r.id, { jobId: r.job_id, now });
        const second = await runPublication(r.id, { jobId: r.job_id, now });
        outcomes.set(r.id, [first, second]);
      });
    }
    for (const r of rows) expect(outcomes.get(r.id)).toEqual(['published', 'skipped']);
    const after = await publicationsOf(pro.id);
    expect(after.every((r) => r.status === 'published')).toBe(true);
    // On the site: exactly one post of each result.
    const titles = new Map<string, number>();
    for (let page = 1; page <= 3; page++) {
      const res = await wp.rest<{ title: { raw: string } }[]>(
        `/wp/v2/posts?search=Drip%20two%20hundred&context=edit&per_page=100&page=${page}`,
      );
      if (res.status !== 200) break;
      for (const p of res.body) titles.set(p.title.raw, (titles.get(p.title.raw) ?? 0) + 1);
    }
    expect(titles.size).toBe(200);
    for (let i = 1; i <= 200; i++) expect(titles.get(`Drip two hundred ${i}`), `post ${i}`).toBe(1);
  }, 600_000);

  it('the same seed plans the same times; a second plan counts what the site already has on its days', async () => {
    const zone = 'Europe/London';
    const pro = await account('seed', zone);
    const rules: DripRules = { perDay: 3, windowStart: 9 * 60, windowEnd: 17 * 60, weekdays: [1, 2, 3, 4, 5], spread: 'random' };
    const base = { siteId: pro.siteId, categories: [], tags: [], featured: false, rules, timeZone: zone, startDate: '2027-03-22', seed: 7 };
    const plannedAt = new Date();
    const ids = await results(pro.id, 'Seeded', 10);
    const dry1 = await queueDrip(pro.id, { ...base, resultIds: ids, plannedAt }, { dryRun: true });
    const dry2 = await queueDrip(pro.id, { ...base, resultIds: ids, plannedAt }, { dryRun: true });
    expect(dry1.publications.map((p) => p.publishAt)).toEqual(dry2.publications.map((p) => p.publishAt));
    expect(dry1.fingerprint).toBe(dry2.fingerprint);
    // A dry run leaves nothing behind.
    expect(await publicationsOf(pro.id)).toHaveLength(0);
    expect(await sql`SELECT 1 FROM wordpress_drip_plans WHERE user_id = ${pro.id}`).toHaveLength(0);
    // Confirmed with the preview's fingerprint: exactly the previewed times.
    const done = await queueDrip(pro.id, { ...base, resultIds: ids, plannedAt }, { expect: dry1.fingerprint });
    expect(done.publications.map((p) => p.publishAt)).toEqual(dry1.publications.map((p) => p.publishAt));
    // Confirming the same preview again: the days are taken now, so the plan changed and nothing is queued.
    const more = await results(pro.id, 'Seeded more', 10);
    const preview = await queueDrip(pro.id, { ...base, resultIds: more, plannedAt }, { dryRun: true });
    await queueDrip(pro.id, { ...base, resultIds: await results(pro.id, 'Seeded other', 2), plannedAt, seed: 8 });
    await expect(queueDrip(pro.id, { ...base, resultIds: more, plannedAt }, { expect: preview.fingerprint })).rejects.toMatchObject({
      code: 'plan_changed',
    });
    // Both plans together keep N a day.
    const all = await publicationsOf(pro.id);
    expect(all).toHaveLength(12);
    expectWithinRules(
      all.map((r) => r.publish_at),
      rules,
      zone,
    );
  });

  it('plans for one site made at the same moment take turns: together they never put more than N on a day', async () => {
    const zone = 'America/New_York';
    const pro = await account('together', zone);
    const rules: DripRules = { perDay: 2, windowStart: 10 * 60, windowEnd: 12 * 60, weekdays: [1, 3, 5], spread: 'random' };
    const batches = await Promise.all([1, 2, 3, 4].map((b) => results(pro.id, `Together ${b}`, 5)));
    const plannedAt = new Date();
    await Promise.all(
      batches.map((ids, i) =>
        queueDrip(pro.id, {
          siteId: pro.siteId,
          resultIds: ids,
          categories: [],
          tags: [],
          featured: false,
          rules,
          timeZone: zone,
          startDate: '2027-11-01',
          seed: i,
          plannedAt,
        }),
      ),
    );
    const all = await publicationsOf(pro.id);
    expect(all).toHaveLength(20);
    // 20 posts, 2 a day on Mondays, Wednesdays and Fridays: ten days, each full, none over.
    const perDay = expectWithinRules(
      all.map((r) => r.publish_at),
      rules,
      zone,
    );
    expect([...perDay.values()]).toEqual(Array.from({ length: 10 }, () => 2));
    // Bad input on the pause and resume doors: a clear refusal, never a database error.
    await expect(pauseDrip(pro.id, Number.NaN)).rejects.toMatchObject({ code: 'no_schedule' });
    await expect(resumeDrip(pro.id, 0)).rejects.toMatchObject({ code: 'no_schedule' });
    const other = await account('together-other');
    await expect(pauseDrip(other.id, pro.siteId)).rejects.toMatchObject({ code: 'no_schedule' });
  });

  it('pause holds due posts (still queued); resume plans them again from now, in order, with new jobs', async () => {
    const zone = 'Asia/Hong_Kong';
    const pro = await account('pause', zone);
    const ids = await results(pro.id, 'Paused post', 5);
    const rules: DripRules = { perDay: 2, windowStart: 0, windowEnd: 1440, weekdays: [0, 1, 2, 3, 4, 5, 6], spread: 'even' };
    const today = instantToZoned(new Date(), zone).date;
    await queueDrip(pro.id, {
      siteId: pro.siteId,
      resultIds: ids,
      categories: [],
      tags: [],
      featured: false,
      rules,
      timeZone: zone,
      startDate: today,
      seed: 1,
      plannedAt: new Date(),
    });
    const before = await publicationsOf(pro.id);
    await pauseDrip(pro.id, pro.siteId);
    // A far-future clock: every post is due, and every one is held.
    const later = Date.now() + 30 * 86_400_000;
    for (const r of before) expect(await runPublication(r.id, { jobId: r.job_id, now: later })).toBe('skipped');
    expect((await publicationsOf(pro.id)).every((r) => r.status === 'queued')).toBe(true);
    const page = await (
      await pro.client.get(`/app/calendar?site=${pro.siteId}&month=${before[0]!.publish_at.toISOString().slice(0, 7)}`)
    ).text();
    expect(page).toContain('data-status="held"');
    expect(page).toContain('Paused');
    // Resumed before anything came due: nothing moves, the jobs still wait.
    expect(await resumeDrip(pro.id, pro.siteId)).toEqual({ replanned: 0, first: null });
    expect((await publicationsOf(pro.id)).map((r) => [r.publish_at.getTime(), r.job_id])).toEqual(
      before.map((r) => [r.publish_at.getTime(), r.job_id]),
    );

    // Paused again while time passes (the rows' times moved into the past): every post came due and was held.
    await pauseDrip(pro.id, pro.siteId);
    await sql`UPDATE wordpress_publications SET publish_at = publish_at - interval '40 days' WHERE user_id = ${pro.id}`;
    for (const r of before) expect(await runPublication(r.id, { jobId: r.job_id })).toBe('skipped');
    const resumed = await resumeDrip(pro.id, pro.siteId);
    expect(resumed.replanned).toBe(5);
    const after = await publicationsOf(pro.id);
    // Same order of results, new times from now under the rules, new jobs; the old jobs canceled.
    expect(after.map((r) => r.result_id)).toEqual(before.map((r) => r.result_id));
    for (const r of after) expect(r.publish_at.getTime()).toBeGreaterThanOrEqual(Date.now() - 120_000);
    expectWithinRules(
      after.map((r) => r.publish_at),
      rules,
      zone,
    );
    for (const [i, r] of after.entries()) expect(r.job_id).not.toBe(before[i]!.job_id);
    const old = await sql<{ state: string }[]>`SELECT state FROM pgboss.job WHERE id = ANY(${before.map((r) => r.job_id)}::uuid[])`;
    expect(old.every((j) => j.state === 'cancelled')).toBe(true);
    // An old job that still runs stands down; the new one publishes.
    expect(await runPublication(after[0]!.id, { jobId: before.find((b) => b.id === after[0]!.id)!.job_id, now: later })).toBe('skipped');
    expect(await runPublication(after[0]!.id, { jobId: after[0]!.job_id, now: later })).toBe('published');
  }, 120_000);

  it('the bulk page previews without JavaScript, then confirms exactly the previewed dates; the calendar shows, moves and cancels them', async () => {
    const zone = 'Europe/London';
    // The page reads the site's zone from its REST index: the site itself keeps London time.
    await wp.php(`update_option('timezone_string', 'Europe/London'); echo 'ok';`);
    const pro = await account('page', zone);
    const ids = await results(pro.id, 'Page drip', 4);
    const pageUrl = `/app/publish-bulk?ids=${ids.join(',')}`;
    const form = await (await pro.client.get(pageUrl)).text();
    expect(form).toContain('Drip under the site&#x27;s schedule');
    expect(form).toContain('Times are in Europe/London.');
    const fields: [string, string][] = [
      ['siteId', String(pro.siteId)],
      ...ids.map((id): [string, string] => ['resultIds', id]),
      ['mode', 'drip'],
      ['dripStartDate', '2027-06-01'],
      ['perDay', '2'],
      ['windowStart', '09:00'],
      ['windowEnd', '17:00'],
      ['weekdays', '2'],
      ['weekdays', '4'],
      ['spread', 'even'],
      ['dripTimeZone', zone],
    ];
    // Bad rules: the messages, nothing planned.
    const badWindow = await post(pro.client, pageUrl, [...fields.filter(([n]) => n !== 'windowEnd'), ['windowEnd', '08:00']]);
    expect(badWindow.status).toBe(400);
    expect(await badWindow.text()).toContain('The window must close after it opens, on the same day');
    const noDays = await post(pro.client, pageUrl, [...fields.filter(([n]) => n !== 'weekdays' && n !== 'perDay'), ['perDay', '0']]);
    expect(noDays.status).toBe(400);
    const noDaysHtml = await noDays.text();
    expect(noDaysHtml).toContain('Tick at least one weekday');
    expect(noDaysHtml).toContain('Enter a whole number of posts a day from 1 to 48');

    const previewed = await post(pro.client, pageUrl, fields);
    expect(previewed.status).toBe(200);
    const html = await previewed.text();
    expect(html).toContain('Planned dates of 4 posts');
    const planned = [...html.matchAll(/data-testid="drip-preview-row".*?<time dateTime="([^"]+)"/g)].map((m) => m[1]!);
    // Tuesday 1 June and Thursday 3 June 2027 (BST), two a day, evenly: 11:00 and 15:00.
    expect(planned).toEqual([
      '2027-06-01T10:00:00.000Z',
      '2027-06-01T14:00:00.000Z',
      '2027-06-03T10:00:00.000Z',
      '2027-06-03T14:00:00.000Z',
    ]);
    expect(await publicationsOf(pro.id)).toHaveLength(0);

    const confirm = hiddenFields(html, 'data-testid="drip-preview"');
    expect(confirm.find(([n]) => n === 'fingerprint')).toBeTruthy();
    const confirmed = await post(pro.client, pageUrl, [...confirm, ['intent', 'confirm']]);
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get('location')).toBe(`/app/calendar?site=${pro.siteId}&month=2027-06`);
    const rows = await publicationsOf(pro.id);
    expect(rows.map((r) => r.publish_at.toISOString())).toEqual(planned);

    // The calendar: a month table in the site's zone, each post on its day; in both languages.
    const calUrl = `/app/calendar?site=${pro.siteId}&month=2027-06`;
    const cal = await (await pro.client.get(calUrl)).text();
    expect(cal).toContain('4 posts scheduled');
    expect(cal).toContain('Days and times in Europe/London.');
    const day = (h: string, date: string) =>
      h.slice(h.indexOf(`data-date="${date}"`), h.indexOf('</td>', h.indexOf(`data-date="${date}"`)));
    expect(day(cal, '2027-06-01')).toContain('Page drip 1');
    expect(day(cal, '2027-06-01')).toContain('Page drip 2');
    expect(day(cal, '2027-06-03')).toContain('Page drip 4');
    expect(cal).toContain('<caption class="sr-only">Scheduled and published posts in June 2027</caption>');
    const zh = await (await pro.client.get(calUrl, { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('發佈日曆');
    expect(zh).toContain('每天最多 2 篇，09:00–17:00，二、四，平均分佈（Europe/London）');

    const move = (id: string, date: string, time: string) =>
      post(pro.client, calUrl, [
        ['intent', 'move'],
        ['publicationId', id],
        ['date', date],
        ['time', time],
        ['tz', zone],
      ]);
    const first = rows[0]!;
    // Outside the window, on a day not chosen, onto a full day: refused with the reason, nothing moved.
    for (const [date, time, reason] of [
      ['2027-06-03', '18:00', "outside the site's drip schedule"],
      ['2027-06-02', '10:00', "outside the site's drip schedule"],
      ['2027-06-03', '12:00', "as many posts as the site's drip schedule allows"],
    ] as const) {
      const res = await move(first.id, date, time);
      expect(res.status).toBe(302);
      const shown = await (await pro.client.get(calUrl)).text();
      expect(shown).toContain('Could not move the post');
      expect(shown.replace(/&#x27;/g, "'")).toContain(reason);
      expect((await publicationsOf(pro.id)).find((r) => r.id === first.id)!.publish_at.getTime()).toBe(first.publish_at.getTime());
    }
    // Inside the rules: moved, with a new job at the new time.
    expect((await move(first.id, '2027-06-08', '09:30')).status).toBe(302);
    expect(await (await pro.client.get(calUrl)).text()).toContain('Scheduled post moved');
    const moved = (await publicationsOf(pro.id)).find((r) => r.id === first.id)!;
    expect(moved.publish_at.toISOString()).toBe('2027-06-08T08:30:00.000Z');
    const [job] = await sql<{ start_after: Date }[]>`SELECT start_after FROM pgboss.job WHERE id = ${moved.job_id}`;
    expect(job!.start_after.toISOString()).toBe('2027-06-08T08:30:00.000Z');
    // Cancel.
    const canceled = await post(pro.client, calUrl, [
      ['intent', 'cancel'],
      ['publicationId', rows[1]!.id],
    ]);
    expect(canceled.status).toBe(302);
    expect(await publicationsOf(pro.id)).toHaveLength(3);
    const finalCal = await (await pro.client.get(calUrl)).text();
    expect(finalCal).toContain('Scheduled post canceled');
    expect(finalCal).not.toContain('Page drip 2<');
    // Another user's publication cannot be moved or canceled from their calendar.
    const other = await account('page-other');
    await post(other.client, '/app/calendar', [
      ['intent', 'cancel'],
      ['publicationId', rows[2]!.id],
    ]);
    expect((await publicationsOf(pro.id)).find((r) => r.id === rows[2]!.id)!.status).toBe('queued');
  }, 120_000);
});

describe('the quality gate', () => {
  const report = (status: 'pass' | 'fail') => ({
    status,
    checkedAt: new Date().toISOString(),
    checks: [{ id: 'length', status, params: { measured: status === 'pass' ? 1200 : 150, target: 1200, unit: 'words', ratio: 0.1 } }],
  });

  it('holds a failing post off WordPress until it is approved (plain form posts, both languages); an approved drip post keeps its slot', async () => {
    const pro = await account('gate');
    const [passing, failing, dripped] = await results(pro.id, 'Gate post', 3);
    await sql`UPDATE generation_results SET quality_status = 'pass', quality = ${sql.json(report('pass'))} WHERE id = ${passing!}`;
    await sql`UPDATE generation_results SET quality_status = 'fail', quality = ${sql.json(report('fail'))} WHERE id IN (${failing!}, ${dripped!})`;
    const onSite = async (title: string) =>
      (
        await wp.rest<{ title: { raw: string } }[]>(
          `/wp/v2/posts?search=${encodeURIComponent(title)}&context=edit&status=publish,future,draft`,
        )
      ).body
        .map((p) => p.title.raw)
        .filter((t) => t === title);

    // Bulk publish now, gated, as the page's form posts it without JavaScript.
    const pageUrl = `/app/publish-bulk?ids=${passing},${failing}`;
    expect(await (await pro.client.get(pageUrl)).text()).toContain('Publish only posts whose quality report passes, or that I approved');
    const sent = await post(pro.client, pageUrl, [
      ['siteId', String(pro.siteId)],
      ['resultIds', passing!],
      ['resultIds', failing!],
      ['mode', 'now'],
      ['qualityGate', 'on'],
    ]);
    expect(sent.status).toBe(302);
    const rows = await publicationsOf(pro.id);
    const pubOf = (id: string) => rows.find((r) => r.result_id === id)!;
    expect(await runPublication(pubOf(passing!).id, { jobId: pubOf(passing!).job_id })).toBe('published');
    expect(await runPublication(pubOf(failing!).id, { jobId: pubOf(failing!).job_id })).toBe('skipped');
    expect(await onSite('Gate post 1')).toEqual(['Gate post 1']);
    expect(await onSite('Gate post 2')).toEqual([]);

    // The review list shows it with its reason and Approve, in English and in Chinese.
    const list = await (await pro.client.get('/app?tab=results&review=needs')).text();
    expect(list).toContain('Gate post 2');
    expect(list).not.toContain('Gate post 1<');
    expect(list).toContain('Quality: needs review');
    expect(list).toContain('Length: 150 of about 1200 words');
    expect(list).toContain('Held: a gated publication waits until you approve this post.');
    const zh = await (await pro.client.get('/app?tab=results&review=needs', { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('質素：需要審閱');
    expect(zh).toContain('全部批准');

    // A drip post of the same kind, planned days ahead, also gated.
    const { publications } = await queueDrip(pro.id, {
      siteId: pro.siteId,
      resultIds: [dripped!],
      categories: [],
      tags: [],
      featured: false,
      qualityGate: true,
      rules: { perDay: 1, windowStart: 600, windowEnd: 660, weekdays: [0, 1, 2, 3, 4, 5, 6], spread: 'even' },
      timeZone: 'UTC',
      startDate: '2027-09-01',
      seed: 1,
      plannedAt: new Date(),
    });
    const slot = new Date(publications[0]!.publishAt);
    const [drip] = await sql<Row[]>`SELECT id, job_id FROM wordpress_publications WHERE id = ${publications[0]!.id}`;
    expect(await runPublication(drip!.id, { jobId: drip!.job_id, now: slot.getTime() })).toBe('skipped');

    // Approve the bulk one by its row's form, then Approve all for the rest: each gets a new job.
    const approved = await post(pro.client, '/app/results', [
      ['intent', 'approve'],
      ['id', failing!],
      ['returnTo', '/app?tab=results&review=needs'],
    ]);
    expect(approved.status).toBe(302);
    const [released] = await sql<Row[]>`SELECT id, job_id, status FROM wordpress_publications WHERE id = ${pubOf(failing!).id}`;
    expect(released!.job_id).not.toBe(pubOf(failing!).job_id);
    expect(await runPublication(released!.id, { jobId: released!.job_id })).toBe('published');
    expect(await onSite('Gate post 2')).toEqual(['Gate post 2']);

    expect((await post(pro.client, '/app/results', [['intent', 'approveAll']])).status).toBe(302);
    const [back] = await sql<(Row & { start_after: Date })[]>`
      SELECT p.id, p.job_id, p.publish_at, j.start_after FROM wordpress_publications p JOIN pgboss.job j ON j.id = p.job_id
      WHERE p.id = ${drip!.id}`;
    expect(back!.job_id).not.toBe(drip!.job_id);
    // Back in its slot: the new job starts at the planned time, not now.
    expect(back!.publish_at.getTime()).toBe(slot.getTime());
    expect(back!.start_after.getTime()).toBe(slot.getTime());
    expect(await runPublication(back!.id, { jobId: back!.job_id, now: slot.getTime() })).toBe('published');
    expect(
      (
        await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE user_id = ${pro.id} AND approved_at IS NOT NULL`
      )[0]!.n,
    ).toBe(2);
  });

  it('the single publish page (plain form posts) and every publish route take the gate: a held post says why, in both languages', async () => {
    const pro = await account('gate-routes');
    const [single, api, bulk, dripped] = await results(pro.id, 'Gated route', 4);
    await sql`UPDATE generation_results SET quality_status = 'fail', quality = ${sql.json(report('fail'))} WHERE user_id = ${pro.id}`;
    const gateOf = async (resultId: string) =>
      (
        await sql<{ quality_gate: boolean; status: string }[]>`
        SELECT quality_gate, status FROM wordpress_publications WHERE result_id = ${resultId} AND status <> 'canceled'`
      )[0];

    // The publish page offers the checkbox (both languages); posted without JavaScript, a failing
    // post is held: Needs review, with its reason, and not on the site.
    const page = `/app/publish/${single}`;
    expect(await (await pro.client.get(page)).text()).toContain('Publish only if its quality report passes, or I approved it');
    expect(await (await pro.client.get(page, { 'accept-language': 'zh-HK' })).text()).toContain('只在質素報告合格或我已批准時發佈');
    const form: [string, string][] = [
      ['siteId', String(pro.siteId)],
      ['mode', 'now'],
      ['title', 'Gated route 1'],
      ['content', '<p>Body of Gated route 1</p>'],
      ['qualityGate', 'on'],
    ];
    const held = await pro.client.request(page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'zh-HK' },
      body: new URLSearchParams(form).toString(),
    });
    expect(held.status).toBe(302);
    expect(held.headers.get('location')).toBe('/app?tab=results&review=needs');
    const told = await (await pro.client.get('/app?tab=results&review=needs', { 'accept-language': 'zh-HK' })).text();
    expect(told).toContain('暫緩發佈，等待審閱：質素報告不合格。');
    expect(told).toContain('長度：150 字，目標約 1200 字');
    expect(await gateOf(single!)).toEqual({ quality_gate: true, status: 'queued' });
    const [pub] = await sql<Row[]>`SELECT id, job_id FROM wordpress_publications WHERE result_id = ${single!}`;
    expect(await runPublication(pub!.id, { jobId: pub!.job_id })).toBe('skipped');

    // The JSON API: held at once with the failed checks named (English here).
    const apiAnswer = await pro.client.postJson('/api/wordpress/publish', {
      siteId: pro.siteId,
      resultId: api,
      title: 'Gated route 2',
      content: '<p>Body of Gated route 2</p>',
      status: 'publish',
      qualityGate: true,
    });
    expect(apiAnswer.status).toBe(202);
    expect(await apiAnswer.json()).toMatchObject({
      success: true,
      held: true,
      heldFor: ['length'],
      message: 'Length: 150 of about 1200 words',
    });
    expect(await gateOf(api!)).toEqual({ quality_gate: true, status: 'queued' });
    const bulkAnswer = await pro.client.postJson('/api/wordpress/publish-bulk', {
      siteId: pro.siteId,
      resultIds: [bulk],
      mode: 'now',
      qualityGate: true,
    });
    expect(bulkAnswer.status).toBe(202);
    expect(await gateOf(bulk!)).toEqual({ quality_gate: true, status: 'queued' });

    // A drip plan through the bulk page's form: preview, then confirm, the gate carried along.
    const bulkPage = `/app/publish-bulk?ids=${dripped}`;
    const previewed = await post(pro.client, bulkPage, [
      ['siteId', String(pro.siteId)],
      ['resultIds', dripped!],
      ['mode', 'drip'],
      ['dripStartDate', '2027-06-01'],
      ['perDay', '1'],
      ['windowStart', '09:00'],
      ['windowEnd', '17:00'],
      ['weekdays', '2'],
      ['spread', 'even'],
      ['dripTimeZone', 'UTC'],
      ['qualityGate', 'on'],
    ]);
    const confirm = hiddenFields(await previewed.text(), 'data-testid="drip-preview"');
    expect(confirm).toContainEqual(['qualityGate', 'on']);
    expect((await post(pro.client, bulkPage, [...confirm, ['intent', 'confirm']])).status).toBe(302);
    expect(await gateOf(dripped!)).toEqual({ quality_gate: true, status: 'queued' });

    // A run started by the API with the gate keeps it for all its posts.
    const starter = await createGenUser(sql, { credits: 5, label: 'gate-run' });
    await saveApiKeys(starter.id, { openRouterApiKey: 'sk-test-text' });
    const client = new TestClient(app.url);
    const pair = (await createSession(starter.id)).setCookie.split(';')[0]!;
    client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    const started = await client.postJson('/api/generate/text', {
      prompts: 'gated topic',
      model: 'openai/gpt-4o-mini-search-preview',
      qualityGate: true,
    });
    expect(started.status).toBe(200);
    const { jobId } = (await started.json()) as { jobId: string };
    expect((await sql`SELECT quality_gate FROM generation_runs WHERE id = ${jobId}`)[0]).toEqual({ quality_gate: true });
  });
});
