import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { createDatabase } from '../../db/embedded';
import { migrate } from '../../db/migrate';

// Failures stored before codes had only an English text. The migration that adds the codes gives
// one to the texts the worker wrote itself (fixed sentences, a provider's "status: words" answer);
// any other text keeps no code and reads "Generation failed", whatever it says (it may be a driver's
// message with a host and port). Run here on a database as it was before that migration.

const MIGRATION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations/029_generation_error_codes.sql');

let db: Sql | undefined;
afterAll(async () => {
  await db?.end();
});

/** A freshly migrated database whose generation_results is put back as it was before the codes. */
async function databaseBeforeCodes(): Promise<Sql> {
  const url = await createDatabase(
    inject('clusterUrl'),
    `pf_backfill_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`,
  );
  db = connect(url, 2);
  await migrate(db);
  await db`ALTER TABLE generation_results DROP COLUMN error_code, DROP COLUMN error_params`;
  return db;
}

describe('failures stored before codes', () => {
  it('get their code when the text was ours or a provider status answer; any other text keeps none', async () => {
    const sql = await databaseBeforeCodes();
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name, subscription_status) VALUES ('backfill@example.com', 'Old Failures', 'pro') RETURNING id`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', 9) RETURNING id`;
    const stored: [string, string | null][] = [
      ['failed', 'The worker stopped while generating this item.'],
      ['failed', 'No API key for the image provider.'],
      ['failed', '400: Model refused old topic'],
      ['failed', '429: Provider error'],
      ['failed', '503: the image could not be downloaded'],
      ['failed', 'write CONNECTION_CLOSED 127.0.0.1:5432'],
      ['failed', 'NSFW content detected'],
      ['completed', null],
      ['canceled', null],
    ];
    for (const [i, [status, error]] of stored.entries()) {
      await sql`
        INSERT INTO generation_results (user_id, run_id, position, type, prompt, model, credits, status, error)
        VALUES (${user!.id}, ${run!.id}, ${i}, 'text', ${`topic ${i}`}, 'm', 1, ${status}, ${error})`;
    }

    await sql.unsafe(fs.readFileSync(MIGRATION, 'utf8'));

    const rows = await sql<{ error: string | null; code: string | null; params: unknown }[]>`
      SELECT error, error_code AS code, error_params AS params FROM generation_results WHERE run_id = ${run!.id} ORDER BY position`;
    expect(rows.map(({ code, params }) => ({ code, params }))).toEqual([
      { code: 'interrupted', params: null },
      { code: 'no_image_key', params: null },
      { code: 'provider_refused', params: { status: 400, detail: 'Model refused old topic' } },
      { code: 'provider_rate_limited', params: { status: 429 } },
      { code: 'image_download_failed', params: { status: 503 } },
      { code: null, params: null },
      { code: null, params: null },
      { code: null, params: null },
      { code: null, params: null },
    ]);
    // The text itself stays, for operators.
    expect(rows.map((r) => r.error)).toEqual(stored.map(([, error]) => error));
  });
});
