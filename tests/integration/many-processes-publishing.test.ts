import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { freshDatabase } from '../support/database';
import { createGenUser } from '../support/generation';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { signIn, startAppProcess, type AppProcess, type Role } from '../support/app-processes';

// Scheduled publishing with two worker processes (and a web process taking the API
// calls) on one Postgres, against a real WordPress: 20 posts due at the same moment each reach the
// site exactly once, none before its time.

const COUNT = 20;
let wp: WordPressSite;
let db: Sql;
let procs: AppProcess[] = [];

beforeAll(async () => {
  const url = await freshDatabase(inject('clusterUrl'), 'pf_many_pub');
  db = connect(url, 2);
  const roles: Role[] = ['web', 'worker', 'worker'];
  [wp, procs] = await Promise.all([
    startWordPress(),
    Promise.all(roles.map((role) => startAppProcess(role, { databaseUrl: url, env: { ALLOW_PRIVATE_HOSTS: 'true' } }))),
  ]);
  await Promise.all(procs.map((p) => p.ready()));
}, 120_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await wp?.stop();
  await db?.end();
});

type WpPost = { id: number; status: string; title: { raw: string }; date_gmt: string };

async function postsTitled(prefix: string): Promise<WpPost[]> {
  const res = await wp.rest<WpPost[]>(
    `/wp/v2/posts?search=${encodeURIComponent(prefix)}&status=publish,future,draft,pending&context=edit&per_page=100`,
  );
  return res.body.filter((p) => p.title.raw.startsWith(prefix));
}

describe('scheduled publishing with two worker processes', () => {
  it(`${COUNT} publications due at the same moment: each reaches WordPress exactly once, none early`, async () => {
    const [web] = procs;
    const user = await createGenUser(db, { status: 'pro', label: 'publisher' });
    const headers = { cookie: await signIn(db, user.id), origin: web!.url, 'content-type': 'application/json' };
    const added = await fetch(`${web!.url}/api/wordpress/sites`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword }),
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const { site } = (await added.json()) as { site: { id: number } };

    const due = new Date(Date.now() + 8000);
    const ids: string[] = [];
    for (let i = 1; i <= COUNT; i++) {
      const res = await fetch(`${web!.url}/api/wordpress/publish`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          siteId: site.id,
          title: `Two workers ${i}`,
          content: `<p>Scheduled post ${i} of ${COUNT}.</p>`,
          status: 'future',
          publishDate: due.toISOString(),
        }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      ids.push(((await res.json()) as { publicationId: string }).publicationId);
    }
    // Nothing reaches the site before its time.
    expect(Date.now()).toBeLessThan(due.getTime());
    expect(await postsTitled('Two workers')).toHaveLength(0);

    const until = Date.now() + 90_000;
    for (;;) {
      const [{ n }] = await db<{ n: number }[]>`
        SELECT count(*)::int AS n FROM wordpress_publications WHERE id = ANY(${ids}::uuid[]) AND status = 'published'`;
      if (n === COUNT) break;
      if (Date.now() > until) throw new Error(`${n} of ${COUNT} published`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const rows = await db<{ publishedAt: Date; wpPostId: string | number; attempts: number }[]>`
      SELECT published_at AS "publishedAt", wp_post_id AS "wpPostId", attempts FROM wordpress_publications WHERE id = ANY(${ids}::uuid[])`;
    for (const row of rows) expect(row.publishedAt.getTime()).toBeGreaterThanOrEqual(due.getTime());
    const posts = await postsTitled('Two workers');
    // Exactly once: 20 posts on the site, one per title, each the one our row points at.
    expect(posts.map((p) => p.title.raw).sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `Two workers ${i + 1}`).sort());
    expect(posts.every((p) => p.status === 'publish')).toBe(true);
    expect(new Set(rows.map((r) => String(r.wpPostId)))).toEqual(new Set(posts.map((p) => String(p.id))));
    // Both workers still run.
    for (const p of procs) expect(p.child.exitCode).toBeNull();
  }, 150_000);
});
