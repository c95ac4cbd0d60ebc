import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PgBoss from 'pg-boss';
import { getSql } from '../../db/client';
import { startReplicateServer, type ReplicateServer } from '../support/replicate-server';
import { startS3Server, type S3TestServer } from '../support/s3-server';
import type { TestApp } from '../support/app-server';
import { available, signedInGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';

// Images in S3-compatible object storage (a real S3 server over HTTP, s3rver): written before
// their rows, served through /images/{id} to their owner only, deleted by a job after their
// results, kept through a storage outage mid-run, moved both ways by `npm run images`. And with no
// S3_* setting, images stay in Postgres as before. (Run `npx remix build` first.)

let replicate: ReplicateServer;
let s3: S3TestServer;
let app: TestApp;
let stopLoop: () => Promise<void>;
type Services = {
  gen: typeof import('../../app/services/generation/start.server');
  results: typeof import('../../app/services/results.server');
  images: typeof import('../../app/services/images.server');
  migration: typeof import('../../app/services/image-migration.server');
  cli: typeof import('../../app/cli/images');
  schema: typeof import('../../app/utils/generation-schema');
  verify: typeof import('../../app/services/ledger-verify.server');
  env: typeof import('../../app/runtime/env.server');
  boss: typeof import('../../app/queue/boss');
  handler: typeof import('../../jobs/handlers/image-objects');
};
let s: Services;

const MODEL = 'black-forest-labs/flux-schnell';
const S3_VARS = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'IMAGE_STORAGE'];

/** Turns object storage on (or off) for this process: the settings are read afresh. `postgres`: the bucket is set, new images go to Postgres. */
function useStorage(on: boolean | 'postgres') {
  for (const name of S3_VARS) delete process.env[name];
  if (on) Object.assign(process.env, s3.env, on === 'postgres' ? { IMAGE_STORAGE: 'postgres' } : {});
  s.env.resetEnv();
}

beforeAll(async () => {
  replicate = await startReplicateServer({ latencyMs: 10 });
  s3 = await startS3Server();
  Object.assign(process.env, {
    REPLICATE_BASE_URL: replicate.url,
    REPLICATE_API_TOKEN: 'r8-operator',
    GENERATION_CONCURRENCY: '10',
    GENERATION_CONCURRENCY_PER_USER: '10',
  });
  s = {
    gen: await import('../../app/services/generation/start.server'),
    results: await import('../../app/services/results.server'),
    images: await import('../../app/services/images.server'),
    migration: await import('../../app/services/image-migration.server'),
    cli: await import('../../app/cli/images'),
    schema: await import('../../app/utils/generation-schema'),
    verify: await import('../../app/services/ledger-verify.server'),
    env: await import('../../app/runtime/env.server'),
    boss: await import('../../app/queue/boss'),
    handler: await import('../../jobs/handlers/image-objects'),
  };
  useStorage(false);
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  stopLoop = (await (await import('../../jobs/generation-loop')).startGenerationLoop()).stop;
});

afterAll(async () => {
  await stopLoop?.();
  await app?.close();
  await replicate?.close();
  await s3?.close();
  for (const name of S3_VARS) delete process.env[name];
});

function signedIn(credits = 20) {
  return signedInGenUser(getSql(), app.url, { credits });
}

const imageRun = (userId: string, topics: string[], numOutputs = 1) =>
  s.gen.startRun(userId, s.schema.imageGenerationSchema().parse({ prompts: topics.join('\n'), model: MODEL, numOutputs }));

type ImageRow = { id: string; storageKey: string | null; bytes: Buffer | null };
const imagesOf = (runId: string) => getSql()<ImageRow[]>`
  SELECT i.id, i.storage_key AS "storageKey", i.bytes FROM generation_images i JOIN generation_results r ON r.id = i.result_id
  WHERE r.run_id = ${runId} ORDER BY i.id`;

/** An object's bytes, read from the bucket. */
const objectBytes = async (key: string) => {
  const { readObject } = await import('../../app/runtime/object-storage.server');
  return readObject(key);
};

/** The headers an image answer carries for caching and safety, whatever its storage. */
const servingHeaders = (res: Response) => ({
  type: res.headers.get('content-type'),
  cache: res.headers.get('cache-control'),
  nosniff: res.headers.get('x-content-type-options'),
  sandboxed: /default-src 'none'; sandbox$/.test(res.headers.get('content-security-policy') ?? ''),
  length: res.headers.get('content-length'),
});
let fromDatabase: ReturnType<typeof servingHeaders>;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('images without S3 settings', () => {
  it('stay in Postgres, served as before; nothing is queued for storage', async () => {
    const a = await signedIn();
    const run = await imageRun(a.id, ['a plain database picture']);
    await waitForRun(getSql(), run.runId);
    const [row] = await imagesOf(run.runId);
    expect(row!.storageKey).toBeNull();
    expect(row!.bytes!.subarray(1, 4).toString()).toBe('PNG');
    const res = await a.c.get(`/images/${row!.id}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(row!.bytes);
    fromDatabase = servingHeaders(res);
    expect(fromDatabase).toMatchObject({ type: 'image/png', cache: 'private, max-age=31536000, immutable', sandboxed: true });
    await s.results.deleteResult(a.id, run.resultIds[0]!);
    const [queued] = await getSql()<{ n: number }[]>`
      SELECT (SELECT count(*)::int FROM image_object_deletions) + (SELECT count(*)::int FROM pgboss.job WHERE name = 'image-objects-delete') AS n`;
    expect(queued!.n).toBe(0);
    expect(s3.keys()).toEqual([]);
  });
});

describe('images in object storage', () => {
  it('are written before their rows (key, no bytes), served streamed to their owner only, deleted by a job after their result', async () => {
    useStorage(true);
    const a = await signedIn();
    const b = await signedIn();
    const run = await imageRun(a.id, ['a stored red square'], 2);
    await waitForRun(getSql(), run.runId);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 1 });
    const rows = await imagesOf(run.runId);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // The key names the image's random id only: nothing of the user or the prompt.
      expect(row).toMatchObject({ storageKey: `images/${row.id}`, bytes: null });
    }
    expect(s3.keys()).toEqual(rows.map((r) => r.storageKey).sort());

    const first = rows[0]!;
    const stored = await objectBytes(first.storageKey!);
    expect(stored.subarray(1, 4).toString()).toBe('PNG');
    const res = await a.c.get(`/images/${first.id}`);
    expect(res.status).toBe(200);
    // The same headers as an image kept in Postgres (the test PNGs are all the same size).
    expect(servingHeaders(res)).toEqual({ ...fromDatabase, length: String(stored.length) });
    expect(res.headers.get('etag')).toBe(`"${first.id}"`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(stored);
    expect((await a.c.get(`/images/${first.id}`, { 'if-none-match': `"${first.id}"` })).status).toBe(304);
    // Another user: 404, as for an id that does not exist.
    const theirs = await b.c.get(`/images/${first.id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.headers.get('cache-control')).toBe('no-store');
    // Downloads read storage too.
    const [second] = await getSql()<{ id: string }[]>`
      SELECT id FROM generation_images WHERE result_id = ${run.resultIds[0]!} AND idx = 1`;
    const download = await s.results.resultDownload(a.id, run.resultIds[0]!, 1);
    expect(download.body).toEqual(await objectBytes(`images/${second!.id}`));

    // Deleting the result queues its objects and a job, in the same transaction; the job deletes them.
    await s.results.deleteResult(a.id, run.resultIds[0]!);
    const waiting = await getSql()<{ key: string }[]>`SELECT storage_key AS key FROM image_object_deletions ORDER BY 1`;
    expect(waiting.map((w) => w.key)).toEqual(rows.map((r) => r.storageKey).sort());
    expect(s3.keys()).toHaveLength(2);
    const boss: PgBoss = await s.boss.startBoss('worker');
    await boss.work('image-objects-delete', { pollingIntervalSeconds: 0.5 }, () => s.handler.handleImageObjectsDelete());
    await until(async () => s3.keys().length === 0, 'the objects to be deleted');
    await until(
      async () => (await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM image_object_deletions`)[0]!.n === 0,
      'the deletion rows to go',
    );
    expect((await a.c.get(`/images/${first.id}`)).status).toBe(404);
    await boss.offWork('image-objects-delete');
  });

  it('a storage outage mid-run: items wait and are retried, none fails or is lost, each is charged once with its image', async () => {
    useStorage(true);
    const a = await signedIn(20);
    const before = await available(getSql(), a.id);
    const asked = replicate.requests.length;
    await s3.stop();
    const topics = Array.from({ length: 4 }, (_, i) => `outage picture ${i}`);
    const run = await imageRun(a.id, topics);
    // Every item has its picture from the provider and cannot store it: none is booked meanwhile.
    await until(async () => replicate.requests.length - asked >= topics.length, 'the provider to be asked for every item');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await statusCounts(getSql(), run.runId)).toEqual({ processing: 4 });
    expect((await imagesOf(run.runId)).length).toBe(0);
    expect(await openHolds(getSql(), a.id)).toBe(4);
    await s3.start();
    await waitForRun(getSql(), run.runId, 30_000);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 4 });
    const rows = await imagesOf(run.runId);
    expect(rows).toHaveLength(4);
    const keys = new Set(s3.keys());
    for (const row of rows) {
      expect(row.bytes).toBeNull();
      expect(keys.has(row.storageKey!)).toBe(true);
    }
    // The ledger: four posted holds, nothing open, nothing voided.
    expect(await available(getSql(), a.id)).toBe(before - 4);
    expect(await openHolds(getSql(), a.id)).toBe(0);
    const [kinds] = await getSql()<{ post: number; void: number }[]>`
      SELECT count(*) FILTER (WHERE kind = 'post')::int AS post, count(*) FILTER (WHERE kind = 'void')::int AS void
      FROM ledger_entries WHERE user_id = ${a.id}`;
    expect(kinds).toEqual({ post: 4, void: 0 });
    expect((await s.verify.verifyLedger({ userId: a.id })).problems).toEqual([]);
  }, 40_000);

  it('npm run images: to-s3 (resumed after a stop), verify (a missing object found), to-db (objects deleted)', async () => {
    // The bucket set, IMAGE_STORAGE=postgres: new images go to Postgres.
    useStorage('postgres');
    const a = await signedIn();
    const run = await imageRun(a.id, ['moved picture 1', 'moved picture 2', 'moved picture 3']);
    await waitForRun(getSql(), run.runId);
    const inDb = await imagesOf(run.runId);
    expect(inDb.every((r) => r.bytes && !r.storageKey)).toBe(true);
    useStorage(true);
    const lines: string[] = [];
    const out = (l: string) => void lines.push(l);

    // Stopped after its first batch (of two), then run again: it goes on.
    await expect(
      s.migration.moveImagesToStorage({
        batchSize: 2,
        onBatch: () => {
          throw new Error('stopped');
        },
      }),
    ).rejects.toThrow('stopped');
    const [left] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_images WHERE storage_key IS NULL`;
    expect(left!.n).toBeGreaterThan(0);
    expect(await s.cli.run(['to-s3', '--batch', '2'], out, getSql())).toBe(0);
    const moved = await imagesOf(run.runId);
    for (const [i, row] of moved.entries()) {
      expect(row).toMatchObject({ storageKey: `images/${row.id}`, bytes: null });
      expect(await objectBytes(row.storageKey!)).toEqual(inDb[i]!.bytes);
    }
    const [none] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_images WHERE storage_key IS NULL`;
    expect(none!.n).toBe(0);
    // Served from storage now, the same bytes; while storage is away, a 503 to try again (never cached).
    const res = await a.c.get(`/images/${moved[0]!.id}`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(inDb[0]!.bytes);
    await s3.stop();
    const away = await a.c.get(`/images/${moved[0]!.id}`);
    expect([away.status, away.headers.get('retry-after'), away.headers.get('cache-control')]).toEqual([503, '5', 'no-store']);
    await s3.start();

    lines.length = 0;
    expect(await s.cli.run(['verify'], out, getSql())).toBe(0);
    expect(lines).toContain('rows whose object is missing: 0');
    expect(lines.at(-1)).toBe('OK');
    // An object lost behind our back: verify names it and fails.
    const { deleteObjects } = await import('../../app/runtime/object-storage.server');
    const lostBytes = await objectBytes(moved[1]!.storageKey!);
    await deleteObjects([moved[1]!.storageKey!]);
    lines.length = 0;
    expect(await s.cli.run(['verify'], out, getSql())).toBe(1);
    expect(lines).toContain(`rows whose object is missing: 1 (${moved[1]!.storageKey})`);
    const { putObject } = await import('../../app/runtime/object-storage.server');
    await putObject(moved[1]!.storageKey!, lostBytes, 'image/png');
    // An object no row points at (a worker killed between writing it and booking its item): counted,
    // kept while young, pruned when old enough.
    await putObject('images/00000000-0000-4000-8000-000000000000', lostBytes, 'image/png');
    lines.length = 0;
    expect(await s.cli.run(['verify'], out, getSql())).toBe(0);
    expect(lines).toContain('objects no row points at: 1 (of which queued for deletion: 0)');
    expect(await s.cli.run(['prune'], out, getSql())).toBe(0);
    expect(s3.keys()).toContain('images/00000000-0000-4000-8000-000000000000');
    expect(await s.cli.run(['prune', '--older-than-hours', '0'], out, getSql())).toBe(0);
    expect(lines.at(-1)).toBe('Done: 1 objects no row points at deleted.');
    expect(s3.keys()).not.toContain('images/00000000-0000-4000-8000-000000000000');
    expect(s3.keys()).toEqual(expect.arrayContaining(moved.map((r) => r.storageKey)));

    // The way back: new images to Postgres again, those in the bucket still served while to-db runs.
    useStorage('postgres');
    expect(Buffer.from(await (await a.c.get(`/images/${moved[2]!.id}`)).arrayBuffer())).toEqual(inDb[2]!.bytes);
    expect(await s.cli.run(['to-db', '--batch', '2'], out, getSql())).toBe(0);
    const back = await imagesOf(run.runId);
    for (const [i, row] of back.entries()) expect(row).toEqual({ ...inDb[i], storageKey: null });
    const [all] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_images WHERE storage_key IS NOT NULL`;
    expect(all!.n).toBe(0);
    expect(s3.keys()).toEqual([]);
    lines.length = 0;
    expect(await s.cli.run(['verify'], out, getSql())).toBe(0);
    expect(lines).toContain('images in object storage: 0');
    useStorage(false);
  });
});
