import path from 'node:path';
import { closeSql, getSql, type Sql } from './client';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

export type OpenDatabase = { sql: Sql; close: () => Promise<void>; embedded: boolean };

/**
 * Settles DATABASE_URL for the process: the given one, or an embedded Postgres in
 * $DATA_DIR/postgres (started here and stopped by close()).
 */
export async function openDatabase(): Promise<OpenDatabase> {
  let embedded: EmbeddedDatabase | undefined;
  if (!process.env.DATABASE_URL) {
    const dataDir = path.resolve(process.env.DATA_DIR || './.data', 'postgres');
    embedded = await startEmbeddedPostgres({
      dataDir,
      port: Number(process.env.EMBEDDED_PG_PORT || 5433),
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
