import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error the package ships no types
import S3rver from '@20minutes/s3rver';

// A real S3-compatible HTTP server for the tests (s3rver: objects on disk in a temporary folder),
// with one bucket. The SDK signs every request (SigV4) as it would for any S3; s3rver checks the
// signature but computes a different one for some listing queries than the SDK does, so mismatches
// are let through (the signature still has to be there). stop() takes it away, as an outage;
// start() brings it back on the same port with the same objects.

export type S3TestServer = {
  url: string;
  bucket: string;
  /** The settings that point the app at it. */
  env: Record<string, string>;
  /** Keys of the objects in the bucket (from the disk, not through the server). */
  keys: () => string[];
  stop: () => Promise<void>;
  start: () => Promise<void>;
  close: () => Promise<void>;
};

type Running = { run: () => Promise<AddressInfo>; httpServer: http.Server };

export async function startS3Server(bucket = 'postforge-test'): Promise<S3TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-s3-'));
  let port = 0;
  let server: Running | null = null;
  const start = async () => {
    const s = new S3rver({
      port,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      allowMismatchedSignatures: true,
      configureBuckets: [{ name: bucket }],
    }) as Running;
    port = (await s.run()).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    s.httpServer.closeAllConnections();
    await new Promise<void>((resolve) => s.httpServer.close(() => resolve()));
  };
  await start();
  const url = `http://127.0.0.1:${port}`;
  const keys = () => {
    const root = path.join(dir, bucket);
    const out: string[] = [];
    const walk = (d: string, prefix: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}${e.name}/`);
        else if (e.name.endsWith('._S3rver_object')) out.push(`${prefix}${e.name.slice(0, -'._S3rver_object'.length)}`);
      }
    };
    if (fs.existsSync(root)) walk(root, '');
    return out.sort();
  };
  return {
    url,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: url,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    keys,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
