import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, freePort, startEmbeddedPostgres } from '../../db/embedded';
import { connect } from '../../db/client';
import { migrate } from '../../db/migrate';

export type TestCluster = { url: string; stop: () => Promise<void> };

/**
 * A Postgres for a test run: the cluster of DATABASE_URL when set, otherwise a throwaway embedded
 * one (fsync off). Each run gets a fresh database on it.
 */
export async function startTestCluster(): Promise<TestCluster> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-pg-'));
  fs.chmodSync(dataDir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'data'), port: await freePort(), persistent: false, fast: true });
  return {
    url: pg.url,
    stop: async () => {
      await pg.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates a fresh, migrated database on the cluster and returns its URL. */
export async function freshDatabase(clusterUrl: string, prefix = 'pf_test'): Promise<string> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const url = await createDatabase(clusterUrl, name);
  const sql = connect(url, 1);
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  return url;
}
