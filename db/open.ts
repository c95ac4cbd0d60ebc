import path from 'node:path';
import { loadEnv } from '../app/runtime/env.server';
import { closeSql, getSql, type Sql } from './client';
import { embeddedUrl, runningPostmaster, startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

export type OpenDatabase = { sql: Sql; close: () => Promise<void>; embedded: boolean };

export type OpenOptions = {
  /**
   * For command-line tools: when the app's embedded Postgres already runs on the data folder, use
   * it instead of starting a second one (which would fail while the app holds the folder).
   */
  shareRunning?: boolean;
};

/**
 * Settles DATABASE_URL for the process: the given one, or an embedded Postgres in
 * $DATA_DIR/postgres on EMBEDDED_PG_PORT (started here and stopped by close(); or, with
 * shareRunning, the one that already runs there, left running by close()); the pools read it from
 * process.env. Throws ConfigError (naming the variable) on an invalid setting.
 */
export async function openDatabase(opts: OpenOptions = {}): Promise<OpenDatabase> {
  let embedded: EmbeddedDatabase | undefined;
  let shared = false;
  const env = loadEnv();
  if (!env.DATABASE_URL) {
    const dataDir = path.resolve(env.DATA_DIR, 'postgres');
    const running = opts.shareRunning ? runningPostmaster(dataDir) : undefined;
    if (running) {
      process.env.DATABASE_URL = embeddedUrl(running.port);
      shared = true;
    } else {
      embedded = await startEmbeddedPostgres({ dataDir, port: env.EMBEDDED_PG_PORT, persistent: true, ownProcessGroup: true });
      process.env.DATABASE_URL = embedded.url;
    }
  }
  const sql = getSql();
  return {
    sql,
    embedded: Boolean(embedded) || shared,
    close: async () => {
      await closeSql();
      if (embedded) await embedded.stop();
    },
  };
}
