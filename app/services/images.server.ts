import { sql, transaction, type Db } from '../../db/client';
import { enqueue } from '~/queue/boss';
import { getLogger } from '~/runtime/logger.server';
import { deleteObjects, newImagesToStorage, openObject, putObject, readObject, storageConfigured } from '~/runtime/object-storage.server';
import { errors, isUuid } from './generation/rules.server';

// Where a generated image's bytes are (generation_images): in Postgres (`bytes`), or, with
// S3_BUCKET set (and IMAGE_STORAGE not `postgres`), in object storage under `storage_key` (the row
// then has no bytes). Objects are
// written before any row points at them and deleted only after their rows are gone
// (image_object_deletions, drained by the image-objects-delete job), so a row never points at a
// missing object. A row that has both is being moved back to Postgres: its bytes are read first.

/** Every image object's key starts with this. */
export const OBJECT_PREFIX = 'images/';

/**
 * The key of an image's object: the image's random id, nothing of its owner or its prompt. One key
 * per image, written once: writing it again (a booking tried twice, a move resumed) writes the same bytes.
 */
export function objectKeyOf(imageId: string): string {
  return `${OBJECT_PREFIX}${imageId}`;
}

export type NewImage = { id: string; idx: number; contentType: string; bytes: Buffer };

/**
 * Writes the images' objects when storage is configured and returns their keys (null: the bytes
 * stay in the row). Throws StorageUnavailable when storage fails: nothing is booked yet.
 */
export async function storeImageObjects(images: NewImage[]): Promise<(string | null)[]> {
  if (!newImagesToStorage()) return images.map(() => null);
  return Promise.all(
    images.map(async (img) => {
      const key = objectKeyOf(img.id);
      await putObject(key, img.bytes, img.contentType);
      return key;
    }),
  );
}

/** The item's image rows, pointing at their objects (`keys` from storeImageObjects) or holding their bytes. */
export async function insertImages(
  owner: { userId: string; resultId: string; attempt: number },
  images: NewImage[],
  keys: (string | null)[],
  db: Db,
): Promise<void> {
  for (const [i, img] of images.entries()) {
    const key = keys[i] ?? null;
    await db`
      INSERT INTO generation_images (id, user_id, result_id, attempt, idx, content_type, bytes, storage_key)
      VALUES (${img.id}, ${owner.userId}, ${owner.resultId}, ${owner.attempt}, ${img.idx}, ${img.contentType},
        ${key ? null : img.bytes}, ${key})`;
  }
}

/**
 * Objects written for rows that were never booked (the item was no longer ours): queued for
 * deletion. Best effort: what a failure here leaves behind, `npm run images -- verify` lists.
 */
export async function discardImageObjects(keys: (string | null)[], db: Db = sql): Promise<void> {
  const given = keys.filter((k): k is string => Boolean(k));
  if (given.length === 0) return;
  try {
    await transaction(db, async (tx) => {
      await tx`INSERT INTO image_object_deletions (storage_key) SELECT unnest(${given}::text[]) ON CONFLICT DO NOTHING`;
      await enqueue('image-objects-delete', {}, {}, tx);
    });
  } catch (err) {
    getLogger().warn({ err: String(err), keys: given.length }, 'images: unbooked objects could not be queued for deletion');
  }
}

/**
 * After rows were deleted in the transaction `tx` (results, runs): when that left objects to delete,
 * the job that deletes them is enqueued with it. Images kept in Postgres leave none: no job.
 */
export async function queueObjectDeletions(tx: Db): Promise<void> {
  // Without storage no row has an object; any waiting from an earlier setup, the 15-minute run takes.
  if (!storageConfigured()) return;
  const [waiting] = await tx<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM image_object_deletions) AS any`;
  if (waiting?.any) await enqueue('image-objects-delete', {}, {}, tx);
}

/**
 * The image-objects-delete job: deletes the objects whose rows are gone, 500 at a time, each batch's
 * queue rows only once storage confirmed (a storage failure throws: the job is retried and the rows wait).
 * Two jobs at once take different rows. Returns how many objects were deleted.
 */
export async function deleteOrphanedObjects(db: Db = sql): Promise<number> {
  // Storage switched off since: the rows wait for it to be configured again.
  if (!storageConfigured()) return 0;
  let deleted = 0;
  for (;;) {
    const n = await transaction(db, async (tx) => {
      const rows = await tx<{ key: string }[]>`
        SELECT storage_key AS key FROM image_object_deletions ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return 0;
      const keys = rows.map((r) => r.key);
      await deleteObjects(keys);
      await tx`DELETE FROM image_object_deletions WHERE storage_key = ANY(${keys}::text[])`;
      return keys.length;
    });
    deleted += n;
    if (n < 500) return deleted;
  }
}

type ImageRow = { id: string; contentType: string; bytes: Buffer | null; storageKey: string | null };

async function findImage(userId: string, imageId: string, db: Db): Promise<ImageRow> {
  if (!isUuid(imageId)) throw errors.notFound('image');
  const [row] = await db<ImageRow[]>`
    SELECT id, content_type AS "contentType", bytes, storage_key AS "storageKey"
    FROM generation_images WHERE id = ${imageId} AND user_id = ${userId}`;
  if (!row) throw errors.notFound('image');
  return row;
}

/** An image's bytes, wherever they are kept. */
async function bytesOf(row: ImageRow): Promise<Buffer> {
  if (row.bytes) return row.bytes;
  return readObject(row.storageKey!);
}

export type StoredImage = { id: string; contentType: string; bytes: Buffer };

/** One of the owner's images with its bytes (another user's: not found). */
export async function getImage(userId: string, imageId: string, db: Db = sql): Promise<StoredImage> {
  const row = await findImage(userId, imageId, db);
  return { id: row.id, contentType: row.contentType, bytes: await bytesOf(row) };
}

/** The bytes and type of one of the owner's images, or null when it is not theirs. */
export async function imageBytesOf(userId: string, imageId: string, db: Db = sql): Promise<StoredImage | null> {
  try {
    return await getImage(userId, imageId, db);
  } catch (err) {
    if ((err as { code?: string }).code === 'not_found') return null;
    throw err;
  }
}

export type ServedImage = {
  id: string;
  contentType: string;
  /** The bytes to send: streamed from storage, or the row's own. Opened only when they are sent. */
  open: () => Promise<{ body: Buffer | ReadableStream<Uint8Array>; length: number | undefined }>;
};

/** One of the owner's images to serve (another user's: not found); its body is read only when opened. */
export async function serveImage(userId: string, imageId: string, db: Db = sql): Promise<ServedImage> {
  const row = await findImage(userId, imageId, db);
  return {
    id: row.id,
    contentType: row.contentType,
    open: async () => (row.bytes ? { body: row.bytes, length: row.bytes.length } : openObject(row.storageKey!)),
  };
}
