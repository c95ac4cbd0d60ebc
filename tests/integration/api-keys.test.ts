import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { maskedApiKeys, providerKey, saveApiKeys } from '../../app/services/api-keys.server';
import { open, seal } from '../../app/services/secrets.server';

async function makeUser(email: string): Promise<string> {
  const [u] = await sql<{ id: string }[]>`INSERT INTO users (email, name) VALUES (${email}, 'Key User') RETURNING id`;
  return u!.id;
}

describe("users' provider keys", () => {
  it('are stored sealed, shown masked, opened only for their owner, and win over the operator key', async () => {
    const a = await makeUser(`keys-a-${Date.now()}@example.com`);
    const b = await makeUser(`keys-b-${Date.now()}@example.com`);
    await saveApiKeys(a, { openRouterApiKey: '  sk-or-secret-1234  ', replicateApiKey: '' });
    const [row] = await sql`SELECT sealed FROM user_api_keys WHERE user_id = ${a} AND provider = 'openrouter'`;
    expect(String(row!.sealed)).not.toContain('sk-or-secret');
    expect(await maskedApiKeys(a)).toEqual({ openRouterApiKey: '••••1234', replicateApiKey: null });
    expect(await providerKey(a, 'openrouter')).toBe('sk-or-secret-1234');
    // Another user's row holding a's sealed value does not open: the owner is bound in.
    await sql`INSERT INTO user_api_keys (user_id, provider, sealed, last4) VALUES (${b}, 'openrouter', ${row!.sealed as string}, '1234')`;
    await expect(providerKey(b, 'openrouter')).rejects.toThrow();
    await saveApiKeys(a, { openRouterApiKey: null });
    expect(await maskedApiKeys(a)).toEqual({ openRouterApiKey: null, replicateApiKey: null });
  });

  it('a tampered sealed value does not open', () => {
    const sealed = seal('hello', 'ctx');
    expect(open(sealed, 'ctx')).toBe('hello');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('jello').toString('base64');
    expect(() => open(parts.join('.'), 'ctx')).toThrow();
    expect(() => open(sealed, 'other')).toThrow();
  });
});
