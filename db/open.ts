import path from 'node:path';
import { loadEnv } from '../app/utils/env.server';
import { closeSql, getSql, type Sql } from './client';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

export type OpenDatabase = { sql: Sql; close: () => Promise<void>; embedded: boolean };

/**
 * Settles DATABASE_URL for the process: the given one, or an embedded Postgres in
 * $DATA_DIR/postgres on EMBEDDED_PG_PORT (started here and stopped by close()); the pools read it
 * from process.env. Throws ConfigError (naming the variable) on an invalid setting.
 */
export async function openDatabase(): Promise<OpenDatabase> {
  let embedded: EmbeddedDatabase | undefined;
  const env = loadEnv();
  if (!env.DATABASE_URL) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(env.DATA_DIR, 'postgres'),
      port: env.EMBEDDED_PG_PORT,
      persistent: true,
    });
    process.env.DATABASE_URL = embedded.url;
  }
  const sql = getSql();
  return {
    sql,
    embedded: Boolean(embedded),
    close: async () => {
      await closeSql();
      if (embedded) await embedded.stop();
    },
  };
}
