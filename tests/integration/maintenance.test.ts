import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { handleMaintenancePurge } from '../../jobs/handlers/maintenance';

describe('maintenance-purge job', () => {
  it('deletes expired sessions and stale rate-limit windows, and keeps live ones', async () => {
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES (${`purge-${Date.now()}@example.com`}, 'Purge') RETURNING id`;
    const tag = `purge-${Date.now()}`;
    await sql`INSERT INTO sessions (id, user_id, expires_at) VALUES
      (${tag + '-old'}, ${user!.id}, now() - interval '1 minute'),
      (${tag + '-live'}, ${user!.id}, now() + interval '1 day')`;
    await sql`INSERT INTO rate_limits (key, window_started_at, hits) VALUES
      (${tag + '-old'}, now() - interval '30 days', 3),
      (${tag + '-live'}, now(), 1)`;
    await handleMaintenancePurge();
    const sessions = await sql<{ id: string }[]>`SELECT id FROM sessions WHERE id LIKE ${tag + '%'}`;
    expect(sessions.map((s) => s.id)).toEqual([tag + '-live']);
    const limits = await sql<{ key: string }[]>`SELECT key FROM rate_limits WHERE key LIKE ${tag + '%'}`;
    expect(limits.map((l) => l.key)).toEqual([tag + '-live']);
  });
});
