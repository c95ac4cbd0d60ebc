// `npm run bench:quality`: the quality report's figures. (1) CPU per item of the content checks at
// 1,500 words (budget 5 ms); (2) the near-duplicate lookup of one post against a site of 10,000
// indexed posts (budget 50 ms); (3) the containment figures behind the duplicate thresholds, on
// made-up distinct articles and near-copies. Runs against its own embedded Postgres (or
// DATABASE_URL's cluster), in a fresh database.
import crypto from 'node:crypto';
import { connect } from '../../db/client';
import { markdownToArticle } from '../../app/services/providers.server';
import { closestPost } from '../../app/services/quality/report.server';
import { articleParts } from '../../app/utils/quality/article';
import { contentChecks } from '../../app/utils/quality/report';
import { containment, shingleHashes } from '../../app/utils/quality/shingles';
import { freshDatabase, startTestCluster } from '../support/database';
import { madeUpArticle, nearCopy, seoBlock } from '../support/quality-articles';

const SITE_POSTS = Number(process.env.BENCH_SITE_POSTS ?? 10_000);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (n: number) => `${n.toFixed(2)} ms`;

function cpuPerItem() {
  const md = madeUpArticle('green tea', { seed: 1, words: 1500 });
  const html = markdownToArticle(md, 'green tea').html;
  const words = articleParts(html).text.split(/\s+/).length;
  const input = {
    title: 'Green tea: a practical guide',
    html,
    topic: 'green tea',
    settings: {},
    seo: { metaDescription: seoBlock('green tea'), slug: 'green-tea-guide', focusKeyword: 'green tea' },
  };
  for (let i = 0; i < 30; i++) contentChecks(input); // warm up the JIT
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    contentChecks(input);
    times.push(performance.now() - t);
  }
  console.log(`content checks at ${words} words: median ${ms(quantile(times, 0.5))}, p95 ${ms(quantile(times, 0.95))} (budget 5 ms)`);
}

function thresholds() {
  const text = (md: string) => articleParts(markdownToArticle(md, 't').html).text;
  const base = Array.from({ length: 20 }, (_, i) => madeUpArticle(`topic ${i}`, { seed: 500 + i }));
  const hashes = base.map((md) => shingleHashes(text(md)));
  const distinct: number[] = [];
  for (let i = 0; i < hashes.length; i++)
    for (let j = 0; j < hashes.length; j++) if (i !== j) distinct.push(containment(hashes[i]!, hashes[j]!));
  console.log(`distinct made-up articles (${distinct.length} pairs): containment max ${quantile(distinct, 1).toFixed(3)}`);
  for (const every of [3, 5, 10, 20]) {
    const copies = base.map((md, i) => containment(shingleHashes(text(nearCopy(md, every, i))), hashes[i]!));
    console.log(
      `near-copies with one word in ${every} changed: containment min ${quantile(copies, 0).toFixed(3)}, median ${quantile(copies, 0.5).toFixed(3)}`,
    );
  }
}

async function siteLookup() {
  const cluster = process.env.DATABASE_URL ? null : await startTestCluster();
  const url = await freshDatabase(process.env.DATABASE_URL ?? cluster!.url, 'pf_bench_quality');
  const db = connect(url, 2);
  try {
    const [user] = await db<{ id: string }[]>`
      INSERT INTO users (email, name, subscription_status) VALUES (${`bench-${crypto.randomUUID()}@example.com`}, 'Bench', 'pro') RETURNING id`;
    const [site] = await db<{ id: string }[]>`
      INSERT INTO wordpress_sites (user_id, site_name, site_url, username, app_password_sealed)
      VALUES (${user!.id}, 'Bench', 'https://bench.example', 'admin', 'x') RETURNING id`;
    const siteId = Number(site!.id);
    const text = (md: string) => articleParts(markdownToArticle(md, 't').html).text;
    const started = performance.now();
    const samples: string[] = [];
    for (let from = 0; from < SITE_POSTS; from += 500) {
      const ids: number[] = [];
      const hashes: number[] = [];
      const posts: { site_id: number; user_id: string; wp_post_id: number; title: string; url: string }[] = [];
      for (let i = from; i < Math.min(SITE_POSTS, from + 500); i++) {
        const md = madeUpArticle(`topic ${i}`, { seed: 10_000 + i, words: 1000 });
        if (i % 500 === 7) samples.push(md);
        for (const h of shingleHashes(text(md))) {
          ids.push(i + 1);
          hashes.push(h);
        }
        posts.push({
          site_id: siteId,
          user_id: user!.id,
          wp_post_id: i + 1,
          title: `Post ${i + 1}`,
          url: `https://bench.example/${i + 1}`,
        });
      }
      await db`INSERT INTO wordpress_site_posts ${db(posts)}`;
      await db`
        INSERT INTO site_post_shingles (user_id, hash, site_id, wp_post_id)
        SELECT ${user!.id}, h, ${siteId}, p FROM unnest(${hashes}::int[], ${ids}::bigint[]) AS t(h, p) ON CONFLICT DO NOTHING`;
    }
    await db`ANALYZE site_post_shingles`;
    const [{ n } = { n: 0 }] = await db<{ n: number }[]>`SELECT count(*)::int AS n FROM site_post_shingles`;
    console.log(`indexed ${SITE_POSTS} site posts (${n} shingle rows) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const nobody = '00000000-0000-0000-0000-000000000000';
    const queries = [
      ...Array.from({ length: 30 }, (_, i) => shingleHashes(text(madeUpArticle(`new ${i}`, { seed: 90_000 + i, words: 1500 })))),
      ...samples.map((md, i) => shingleHashes(text(nearCopy(md, 10, i)))),
    ];
    for (const q of queries.slice(0, 5)) await closestPost(user!.id, nobody, q, db); // warm the cache
    const times: number[] = [];
    let found = 0;
    for (const q of queries) {
      const t = performance.now();
      const hit = await closestPost(user!.id, nobody, q, db);
      times.push(performance.now() - t);
      if (hit && hit.similarity >= 0.5) found++;
    }
    console.log(
      `near-duplicate lookup against ${SITE_POSTS} posts: median ${ms(quantile(times, 0.5))}, p95 ${ms(quantile(times, 0.95))}, max ${ms(quantile(times, 1))} ` +
        `(budget 50 ms); ${found} of ${samples.length} near-copies found, ${queries.length - samples.length} new posts`,
    );
  } finally {
    await db.end();
    await cluster?.stop();
  }
}

cpuPerItem();
thresholds();
await siteLookup();
