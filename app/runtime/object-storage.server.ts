import type { S3Client } from '@aws-sdk/client-s3';
import { env } from './env.server';
import { singleton } from './singleton.server';

// The S3-compatible object store of the process (S3_* settings), for the images. Without
// S3_BUCKET nothing here runs and the SDK is never loaded: images stay in Postgres.

/**
 * Storage did not answer, or answered with a failure: not the item's fault, worth doing again. Its
 * message names no host or key (it may be stored with a publication); `detail` is for the logs.
 */
export class StorageUnavailable extends Error {
  readonly detail: string;
  constructor(
    readonly operation: string,
    readonly cause: unknown,
  ) {
    super(`object storage failed to ${operation}`);
    this.detail = describe(cause);
  }
}

/** The object is not in the bucket. */
export class ObjectMissing extends Error {
  constructor(readonly key: string) {
    super(`object ${key} is missing from storage`);
  }
}

function describe(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  return [e?.name ?? e?.code, status ? `HTTP ${status}` : null, e?.message].filter(Boolean).join(': ').slice(0, 300);
}

/** True when S3_BUCKET is set: images with a key can be read, moved and deleted. */
export function storageConfigured(): boolean {
  return Boolean(env.S3_BUCKET);
}

/** True when new images go to object storage (S3_BUCKET set, IMAGE_STORAGE not `postgres`). */
export function newImagesToStorage(): boolean {
  return storageConfigured() && env.IMAGE_STORAGE !== 'postgres';
}

/** The bucket's name (only with storage configured). */
export function bucketName(): string {
  if (!env.S3_BUCKET) throw new Error('S3_BUCKET is not set');
  return env.S3_BUCKET;
}

type Sdk = typeof import('@aws-sdk/client-s3');

/** The SDK and one client per process, made on first use (the SDK is loaded only then). */
function storage(): Promise<{ sdk: Sdk; client: S3Client; bucket: string }> {
  // An image row with a key while the bucket's settings are gone: storage is away for it (never cached).
  if (!env.S3_BUCKET) return Promise.reject(new StorageUnavailable('reach object storage', new Error('S3_BUCKET is not set')));
  return singleton('object-storage', async () => {
    const sdk = await import('@aws-sdk/client-s3');
    const pathStyle = env.S3_FORCE_PATH_STYLE ? ['true', '1'].includes(env.S3_FORCE_PATH_STYLE) : Boolean(env.S3_ENDPOINT);
    const client = new sdk.S3Client({
      region: env.S3_REGION,
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      forcePathStyle: pathStyle,
      ...(env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } }
        : {}),
      // A dead endpoint fails within seconds, so our callers' own retries (an item's booking, a
      // job's retry) decide what happens next rather than a long wait inside the SDK.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 30_000 },
    });
    return { sdk, client, bucket: bucketName() };
  });
}

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** Writes an object (images are written once under a fresh key, so a repeat writes the same bytes). */
export async function putObject(key: string, body: Buffer, contentType: string): Promise<void> {
  const { sdk, client, bucket } = await storage();
  try {
    await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
  } catch (err) {
    throw new StorageUnavailable('store an image', err);
  }
}

/** An object as a stream, with its length when storage gives it. */
export async function openObject(key: string): Promise<{ body: ReadableStream<Uint8Array>; length: number | undefined }> {
  const { sdk, client, bucket } = await storage();
  try {
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!out.Body) throw new ObjectMissing(key);
    return { body: out.Body.transformToWebStream() as ReadableStream<Uint8Array>, length: out.ContentLength };
  } catch (err) {
    if (err instanceof ObjectMissing || isMissing(err)) throw new ObjectMissing(key);
    throw new StorageUnavailable('read an image', err);
  }
}

/** An object's bytes. */
export async function readObject(key: string): Promise<Buffer> {
  const { sdk, client, bucket } = await storage();
  try {
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!out.Body) throw new ObjectMissing(key);
    return Buffer.from(await out.Body.transformToByteArray());
  } catch (err) {
    if (err instanceof ObjectMissing || isMissing(err)) throw new ObjectMissing(key);
    throw new StorageUnavailable('read an image', err);
  }
}

/** Deletes these objects (at most 1000 a request); one already gone counts as deleted. */
export async function deleteObjects(keys: string[]): Promise<void> {
  const { sdk, client, bucket } = await storage();
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    let out;
    try {
      out = await client.send(
        new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }),
      );
    } catch (err) {
      throw new StorageUnavailable('delete images', err);
    }
    const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
    if (failed.length) throw new StorageUnavailable('delete images', { name: failed[0]!.Code, message: failed[0]!.Message });
  }
}

export type ListedObject = { key: string; size: number; lastModified: Date | undefined };

/** Every object under the prefix, in key order (byte order), a page at a time. */
export async function* listObjects(prefix: string): AsyncGenerator<ListedObject[]> {
  const { sdk, client, bucket } = await storage();
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    } catch (err) {
      throw new StorageUnavailable('list images', err);
    }
    yield (page.Contents ?? []).map((o) => ({ key: o.Key!, size: o.Size ?? 0, lastModified: o.LastModified }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}
