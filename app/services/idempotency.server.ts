import crypto from 'node:crypto';
import { AppError } from '~/utils/app-error';
import { sql, transaction, type Db, type TransactionSql } from '../../db/client';

export type { TransactionSql };

// Idempotency-Key for the routes that start work, with Stripe's semantics: the same
// key with the same request answers what the first answered (same job id), never a second run or
// charge; the same key with another request is refused. Keys are per user and live 24 hours.
//
// The key's row is inserted in the same transaction as the work and holds its answer, so "done"
// and "answer stored" are one commit: there is no window where the work happened but the key does
// not know it, and a process that dies mid-way leaves no key behind (its transaction rolls back).
// A second request with the key meets the uncommitted row on the unique index; it gives up its
// connection at once (a short lock_timeout) and tries again a moment later, so ten waiters never
// hold the pool the first one needs. It then finds the stored answer, or (the first rolled back)
// does the work itself; after WAIT_MS it is told "busy" (a 409 to retry).

export const KEY_HOURS = 24;
const WAIT_MS = 10_000;
/** How long one try waits on the first request's row before giving its connection back. */
const TRY_LOCK_MS = 50;

export type Answer = { status: number; body: unknown };

export const IDEMPOTENCY_ERROR_CODES = ['idempotency_key_invalid', 'idempotency_mismatch', 'idempotency_busy'] as const;
export type IdempotencyErrorCode = (typeof IDEMPOTENCY_ERROR_CODES)[number];

const IDEMPOTENCY_ERROR_KEYS: Record<IdempotencyErrorCode, string> = {
  idempotency_key_invalid: 'errors.idempotencyKeyInvalid',
  idempotency_mismatch: 'errors.idempotencyMismatch',
  idempotency_busy: 'errors.idempotencyBusy',
};

/** An Idempotency-Key refused: malformed, used with another request, or its request still running. */
export class IdempotencyError extends AppError<'tokens', IdempotencyErrorCode> {
  constructor(code: IdempotencyErrorCode) {
    super('tokens', code, IDEMPOTENCY_ERROR_KEYS[code], `Idempotency-Key refused: ${code}`);
    this.name = 'IdempotencyError';
  }
}
export type Outcome = { kind: 'fresh' | 'replayed'; answer: Answer } | { kind: 'mismatch' } | { kind: 'busy' };

/** A key is 1 to 255 visible ASCII characters (Stripe allows 255; a UUID v4 is the usual choice). */
export const validKey = (key: string) => /^[\x21-\x7e]{1,255}$/.test(key);

/** JSON with object keys sorted at every level: the same request hashes the same whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same": method, path and the canonical body. */
export function fingerprint(method: string, path: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/**
 * Runs work once per (user, key) (each time when key is null): work gets the transaction its writes must join; a thrown error
 * rolls the key back with them (an error is not an answer: the key stays unused).
 */
export async function runOnce(
  userId: string,
  key: string | null,
  print: string,
  work: (tx: TransactionSql) => Promise<Answer>,
  db: Db = sql,
): Promise<Outcome> {
  // Without a key: the work in its transaction, as any request.
  if (key === null) return { kind: 'fresh', answer: await transaction(db, work) };
  const until = Date.now() + WAIT_MS;
  for (;;) {
    try {
      return await attempt(userId, key, print, work, db);
    } catch (err) {
      // lock_not_available: the first request with the key is still running.
      if ((err as { code?: string }).code !== '55P03') throw err;
      if (Date.now() >= until) return { kind: 'busy' };
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
}

function attempt(userId: string, key: string, print: string, work: (tx: TransactionSql) => Promise<Answer>, db: Db): Promise<Outcome> {
  return transaction(db, async (tx) => {
    await tx`SELECT set_config('lock_timeout', ${`${TRY_LOCK_MS}ms`}, true)`;
    // A key past its 24 hours is free again, even before the maintenance purge removes it.
    await tx`DELETE FROM idempotency_keys
             WHERE user_id = ${userId} AND key = ${key} AND created_at <= now() - make_interval(hours => ${KEY_HOURS})`;
    const claimed = await tx`
      INSERT INTO idempotency_keys (user_id, key, fingerprint) VALUES (${userId}, ${key}, ${print})
      ON CONFLICT (user_id, key) DO NOTHING RETURNING key`;
    if (!claimed.length) {
      const [row] = await tx<{ fingerprint: string; status: number | null; body: unknown }[]>`
        SELECT fingerprint, status, body FROM idempotency_keys WHERE user_id = ${userId} AND key = ${key}`;
      if (!row || row.status === null) return { kind: 'busy' } as const;
      if (row.fingerprint !== print) return { kind: 'mismatch' } as const;
      return { kind: 'replayed', answer: { status: row.status, body: row.body } } as const;
    }
    await tx`SELECT set_config('lock_timeout', '0', true)`;
    const answer = await work(tx);
    await tx`UPDATE idempotency_keys SET status = ${answer.status}, body = ${tx.json(answer.body as never)}
             WHERE user_id = ${userId} AND key = ${key}`;
    return { kind: 'fresh', answer } as const;
  });
}

/** Removes keys past their 24 hours; for the maintenance job. */
export async function purgeExpiredIdempotencyKeys(db: Db = sql): Promise<number> {
  const result = await db`DELETE FROM idempotency_keys WHERE created_at <= now() - make_interval(hours => ${KEY_HOURS})`;
  return result.count;
}
