import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { createDatabase } from '../../db/embedded';
import { migrate } from '../../db/migrate';

// Deliveries stored before codes had only an English text. The migration that adds the codes gives
// one to the texts we wrote ourselves (an HTTP status, the outbound guard's fixed sentences); any
// other text keeps none and reads "Delivery failed". Run on a database as it was before it.

const MIGRATION = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations/032_webhook_delivery_error_codes.sql');

let db: Sql | undefined;
afterAll(async () => {
  await db?.end();
});

describe('webhook deliveries stored before codes', () => {
  it('get their code when the text was ours; any other text keeps none, and the text stays', async () => {
    const url = await createDatabase(
      inject('clusterUrl'),
      `pf_hookfill_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`,
    );
    db = connect(url, 2);
    const sql = db;
    await migrate(sql);
    await sql`ALTER TABLE webhook_deliveries DROP COLUMN last_error_code, DROP COLUMN last_error_params`;
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES ('hookfill@example.com', 'Old Deliveries') RETURNING id`;
    const [endpoint] = await sql<{ id: string }[]>`
      INSERT INTO webhook_endpoints (user_id, url, events, secret_sealed, secret_hint)
      VALUES (${user!.id}, 'https://hooks.example.com/in', ARRAY['run.completed'], 'sealed', 'AAAA') RETURNING id`;
    const stored = [
      'HTTP 503',
      'endpoint turned off',
      'The connection was refused',
      'The site did not answer in time',
      'The host name could not be resolved (ENOTFOUND)',
      'TLS error: certificate has expired',
      'hooks.example.com resolves to a private or reserved address (10.0.0.1)',
      'socket hang up',
      null,
    ];
    for (const [i, text] of stored.entries()) {
      const eventId = `msg_fill${i}`;
      await sql`INSERT INTO webhook_events (id, user_id, type, payload) VALUES (${eventId}, ${user!.id}, 'run.completed', '{}'::jsonb)`;
      await sql`
        INSERT INTO webhook_deliveries (event_id, endpoint_id, user_id, status, attempts, last_error, created_at)
        VALUES (${eventId}, ${endpoint!.id}, ${user!.id}, ${text ? 'failed' : 'delivered'}, 1, ${text}, now() + make_interval(secs => ${i}))`;
    }

    await sql.unsafe(fs.readFileSync(MIGRATION, 'utf8'));

    const rows = await sql<{ text: string | null; code: string | null; params: unknown }[]>`
      SELECT last_error AS text, last_error_code AS code, last_error_params AS params FROM webhook_deliveries
      WHERE endpoint_id = ${endpoint!.id} ORDER BY created_at`;
    expect(rows.map(({ code, params }) => ({ code, params }))).toEqual([
      { code: 'http_status', params: { status: 503 } },
      { code: 'endpoint_disabled', params: null },
      { code: 'refused', params: null },
      { code: 'timeout', params: null },
      { code: 'dns', params: null },
      { code: 'tls', params: null },
      { code: 'blocked_address', params: null },
      { code: null, params: null },
      { code: null, params: null },
    ]);
    expect(rows.map((r) => r.text)).toEqual(stored);
  });
});
