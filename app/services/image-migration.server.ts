import { sql, type Db } from '../../db/client';
import { deleteObjects, listObjects, ObjectMissing, putObject, readObject, type ListedObject } from '~/runtime/object-storage.server';
import { objectKeyOf, OBJECT_PREFIX } from './images.server';

// Moving the images that exist between Postgres and object storage (`npm run images`), a batch at
// a time. Each step is safe to repeat, so a move stopped anywhere is resumed by running it again:
// to storage, an object is written (under the image's own key: again, the same bytes) before its
// row drops its bytes; back, the bytes are copied into the row before its object is deleted, and
// the row forgets the key only after that.

export type MoveProgress = (done: number) => void;

/** How many image objects are written or read at once within a batch. */
const PARALLEL = 8;

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(PARALLEL, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** Every image still in Postgres into object storage; returns how many rows moved. */
export async function moveImagesToStorage(opts: { batchSize?: number; onBatch?: MoveProgress } = {}, db: Db = sql): Promise<number> {
  const batchSize = opts.batchSize ?? 50;
  let moved = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db<{ id: string; contentType: string; bytes: Buffer }[]>`
      SELECT id, content_type AS "contentType", bytes FROM generation_images
      WHERE storage_key IS NULL AND id > ${after} ORDER BY id LIMIT ${batchSize}`;
    if (rows.length === 0) return moved;
    await inParallel(rows, (r) => putObject(objectKeyOf(r.id), r.bytes, r.contentType));
    const done = await db`
      UPDATE generation_images SET storage_key = ${OBJECT_PREFIX} || id::text, bytes = NULL
      WHERE id = ANY(${rows.map((r) => r.id)}::uuid[]) AND storage_key IS NULL`;
    moved += done.count;
    after = rows[rows.length - 1]!.id;
    opts.onBatch?.(moved);
  }
}

/**
 * Every image in object storage back into Postgres; returns how many rows moved and the keys whose
 * object was missing (those rows are left as they are, for an operator to look at).
 */
export async function moveImagesToDatabase(
  opts: { batchSize?: number; onBatch?: MoveProgress } = {},
  db: Db = sql,
): Promise<{ moved: number; missing: string[] }> {
  const batchSize = opts.batchSize ?? 50;
  let moved = 0;
  const missing: string[] = [];
  let after = '';
  for (;;) {
    const rows = await db<{ id: string; key: string; copied: boolean }[]>`
      SELECT id, storage_key AS key, bytes IS NOT NULL AS copied FROM generation_images
      WHERE storage_key IS NOT NULL AND storage_key COLLATE "C" > ${after} ORDER BY storage_key COLLATE "C" LIMIT ${batchSize}`;
    if (rows.length === 0) return { moved, missing };
    const copied = rows.filter((r) => r.copied);
    await inParallel(
      rows.filter((r) => !r.copied),
      async (r) => {
        try {
          const bytes = await readObject(r.key);
          await db`UPDATE generation_images SET bytes = ${bytes} WHERE id = ${r.id} AND storage_key = ${r.key}`;
          copied.push(r);
        } catch (err) {
          if (!(err instanceof ObjectMissing)) throw err;
          missing.push(r.key);
        }
      },
    );
    if (copied.length > 0) {
      await deleteObjects(copied.map((r) => r.key));
      const done = await db`
        UPDATE generation_images SET storage_key = NULL
        WHERE id = ANY(${copied.map((r) => r.id)}::uuid[]) AND bytes IS NOT NULL AND storage_key IS NOT NULL`;
      moved += done.count;
    }
    after = rows[rows.length - 1]!.key;
    opts.onBatch?.(moved);
  }
}

export type StorageReport = {
  /** Rows whose bytes are in Postgres. */
  inDatabase: number;
  /** Rows pointing at an object. */
  inStorage: number;
  /** Rows whose object is not in the bucket (the first 100 keys). */
  missing: string[];
  missingCount: number;
  /** Objects under the prefix no row points at (deletions waiting included; the first 100 keys). */
  unreferenced: string[];
  unreferencedCount: number;
  /** Objects queued for deletion (their rows are gone). */
  waitingDeletion: number;
  ok: boolean;
};

/** Row keys in byte order, a page at a time (the order object storage lists in). */
async function* rowKeys(db: Db): AsyncGenerator<string[]> {
  let after = '';
  for (;;) {
    const page = await db<{ key: string }[]>`
      SELECT storage_key AS key FROM generation_images
      WHERE storage_key IS NOT NULL AND storage_key COLLATE "C" > ${after} ORDER BY storage_key COLLATE "C" LIMIT 1000`;
    if (page.length === 0) return;
    yield page.map((p) => p.key);
    after = page[page.length - 1]!.key;
  }
}

/** One item at a time out of pages. */
async function* flat<T>(pages: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/**
 * The rows and the bucket's listing walked side by side in key order (no object is read): each row
 * whose object is missing, and each object no row points at.
 */
async function* mismatches(db: Db): AsyncGenerator<{ missing: string } | { unreferenced: ListedObject }> {
  const rows = flat(rowKeys(db));
  const objects = flat(listObjects(OBJECT_PREFIX));
  let row = await rows.next();
  let object = await objects.next();
  while (!row.done || !object.done) {
    if (!row.done && (object.done || row.value < object.value.key)) {
      yield { missing: row.value };
      row = await rows.next();
    } else if (!object.done && (row.done || object.value.key < row.value)) {
      yield { unreferenced: object.value };
      object = await objects.next();
    } else {
      row = await rows.next();
      object = await objects.next();
    }
  }
}

/** Checks that every row that points at an object has it; also counts objects no row points at. */
export async function verifyImageStorage(db: Db = sql): Promise<StorageReport> {
  const [counts] = await db<{ inDatabase: number; inStorage: number; waiting: number }[]>`
    SELECT count(*) FILTER (WHERE storage_key IS NULL)::int AS "inDatabase",
      count(*) FILTER (WHERE storage_key IS NOT NULL)::int AS "inStorage",
      (SELECT count(*)::int FROM image_object_deletions) AS waiting
    FROM generation_images`;
  const report: StorageReport = {
    inDatabase: counts!.inDatabase,
    inStorage: counts!.inStorage,
    missing: [],
    missingCount: 0,
    unreferenced: [],
    unreferencedCount: 0,
    waitingDeletion: counts!.waiting,
    ok: true,
  };
  for await (const m of mismatches(db)) {
    if ('missing' in m) {
      report.missingCount++;
      if (report.missing.length < 100) report.missing.push(m.missing);
    } else {
      report.unreferencedCount++;
      if (report.unreferenced.length < 100) report.unreferenced.push(m.unreferenced.key);
    }
  }
  report.ok = report.missingCount === 0;
  return report;
}

/**
 * Deletes the objects no row points at that are older than `olderThanMs` (an object younger may
 * belong to an item being booked right now). Such objects are left by a worker killed between
 * writing an item's objects and booking it. Returns how many were deleted.
 */
export async function pruneUnreferencedObjects(olderThanMs: number, db: Db = sql): Promise<number> {
  const before = Date.now() - olderThanMs;
  const stale: string[] = [];
  for await (const m of mismatches(db)) {
    if ('unreferenced' in m && (m.unreferenced.lastModified?.getTime() ?? Date.now()) < before) stale.push(m.unreferenced.key);
  }
  await deleteObjects(stale);
  // Whatever waited for deletion among them is done.
  if (stale.length) await db`DELETE FROM image_object_deletions WHERE storage_key = ANY(${stale}::text[])`;
  return stale.length;
}
