import { sql, type Db } from '../../db/client';
import { env } from '~/runtime/env.server';
import { mask, open, seal } from './secrets.server';

// Users' own provider keys (POST /api/api-keys). Stored sealed; only a mask ever leaves.
export type Provider = 'openrouter' | 'replicate';
export const providerOfField = { openRouterApiKey: 'openrouter', replicateApiKey: 'replicate' } as const;
export type ApiKeyField = keyof typeof providerOfField;

const context = (userId: string, provider: Provider) => `api-key:${provider}:${userId}`;

/** Saves the given keys (blank ones are skipped); `null` removes that provider's key. */
export async function saveApiKeys(userId: string, keys: Partial<Record<ApiKeyField, string | null>>, db: Db = sql): Promise<void> {
  for (const [field, provider] of Object.entries(providerOfField) as [ApiKeyField, Provider][]) {
    const value = keys[field];
    if (value === null) {
      await db`DELETE FROM user_api_keys WHERE user_id = ${userId} AND provider = ${provider}`;
      continue;
    }
    const trimmed = value?.trim();
    if (!trimmed) continue;
    await db`
      INSERT INTO user_api_keys (user_id, provider, sealed, last4)
      VALUES (${userId}, ${provider}, ${seal(trimmed, context(userId, provider))}, ${trimmed.slice(-4)})
      ON CONFLICT (user_id, provider) DO UPDATE SET sealed = EXCLUDED.sealed, last4 = EXCLUDED.last4, updated_at = now()`;
  }
}

/** Masks of the saved keys, for settings screens: `{ openRouterApiKey: '••••abcd' | null, ... }`. */
export async function maskedApiKeys(userId: string, db: Db = sql): Promise<Record<ApiKeyField, string | null>> {
  const rows = await db<{ provider: Provider; last4: string }[]>`SELECT provider, last4 FROM user_api_keys WHERE user_id = ${userId}`;
  const byProvider = new Map(rows.map((r) => [r.provider, mask(`xxxx${r.last4}`)]));
  return { openRouterApiKey: byProvider.get('openrouter') ?? null, replicateApiKey: byProvider.get('replicate') ?? null };
}

/** The key to call a provider with for this user: their own when saved, else the operator's, else null. */
export async function providerKey(userId: string, provider: Provider, db: Db = sql): Promise<string | null> {
  const [row] = await db<{ sealed: string }[]>`SELECT sealed FROM user_api_keys WHERE user_id = ${userId} AND provider = ${provider}`;
  if (row) return open(row.sealed, context(userId, provider));
  const operator = provider === 'openrouter' ? env.OPENROUTER_API_KEY : env.REPLICATE_API_TOKEN;
  return operator || null;
}
