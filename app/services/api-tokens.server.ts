import crypto from 'node:crypto';
import { AppError } from '~/utils/app-error';
import { sql, type Db } from '../../db/client';
import type { SessionUser } from './sessions.server';

// Personal API tokens: `Authorization: Bearer pf_live_…` on the JSON API routes.
//
// A token is TOKEN_PREFIX and 64 hex digits (256 random bits), so secret scanners can match
// /pf_live_[0-9a-f]{64}/. Only its SHA-256 is stored. Not argon2: argon2 slows down guessing a
// low-entropy password; nobody guesses 256 random bits, and a salted slow hash would cost tens of
// milliseconds and a lookup key on every API request, where a plain digest is found by its index.

export const TOKEN_PREFIX = 'pf_live_';
export const TOKEN_PATTERN = /^pf_live_[0-9a-f]{64}$/;
/** Tokens an account may hold at once (revoked ones do not count). */
export const MAX_TOKENS_PER_USER = 50;
/** last_used_at is written at most this often per token, so API reads stay reads. */
const LAST_USE_STEP_SECONDS = 60;

export type ApiToken = {
  id: string;
  name: string;
  last4: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type TokenUser = { tokenId: string; user: SessionUser };

export const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export const API_TOKEN_ERROR_CODES = ['too_many', 'invalid_token', 'malformed_authorization'] as const;
export type ApiTokenErrorCode = (typeof API_TOKEN_ERROR_CODES)[number];

/** Each code's message in the `tokens` namespace. */
const API_TOKEN_ERROR_KEYS: Record<ApiTokenErrorCode, string> = {
  too_many: 'errors.too_many',
  invalid_token: 'errors.invalidToken',
  malformed_authorization: 'errors.malformedAuthorization',
};

/** A refusal about tokens: one too many (about the form's `name` field), or a bearer token that is not valid. */
export class ApiTokenError extends AppError<'tokens', ApiTokenErrorCode> {
  constructor(code: ApiTokenErrorCode) {
    const tooMany = code === 'too_many';
    super(
      'tokens',
      code,
      API_TOKEN_ERROR_KEYS[code],
      `API token refused: ${code}`,
      tooMany ? { max: MAX_TOKENS_PER_USER } : {},
      tooMany ? 'name' : undefined,
    );
    this.name = 'ApiTokenError';
  }
}

/** Creates a token; the only time its secret exists outside the caller is this return value. */
export async function createApiToken(
  userId: string,
  input: { name: string; expiresAt: Date | null },
  db: Db = sql,
): Promise<{ token: string; apiToken: ApiToken }> {
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('hex');
  const [row] = await db<ApiToken[]>`
    INSERT INTO api_tokens (user_id, name, token_hash, last4, expires_at)
    SELECT ${userId}, ${input.name}, ${hashToken(token)}, ${token.slice(-4)}, ${input.expiresAt}
    WHERE (SELECT count(*) FROM api_tokens WHERE user_id = ${userId} AND revoked_at IS NULL) < ${MAX_TOKENS_PER_USER}
    RETURNING ${columns(db)}`;
  if (!row) throw new ApiTokenError('too_many');
  return { token, apiToken: withIsoDates(row) };
}

const columns = (db: Db) => db`
  id, name, last4,
  created_at AS "createdAt", expires_at AS "expiresAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

/** The user's tokens, newest first (revoked ones too, so the page can say so). */
export async function listApiTokens(userId: string, db: Db = sql): Promise<ApiToken[]> {
  const rows = await db<ApiToken[]>`
    SELECT ${columns(db)} FROM api_tokens WHERE user_id = ${userId} ORDER BY created_at DESC, id LIMIT 200`;
  return rows.map(withIsoDates);
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));
const withIsoDates = (r: ApiToken): ApiToken => ({
  ...r,
  createdAt: iso(r.createdAt)!,
  expiresAt: iso(r.expiresAt),
  lastUsedAt: iso(r.lastUsedAt),
  revokedAt: iso(r.revokedAt),
});

/** Revokes one of the user's tokens: every request with it gets 401 from now on. False if it is not theirs. */
export async function revokeApiToken(userId: string, tokenId: string, db: Db = sql): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(tokenId)) return false;
  const rows = await db`
    UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${tokenId} AND user_id = ${userId} RETURNING id`;
  return rows.length > 0;
}

/**
 * The user a bearer token stands for, or null when it is unknown, revoked or expired (checked on
 * every request: nothing is cached, so a revocation holds at once).
 */
export async function authenticateApiToken(token: string, db: Db = sql): Promise<TokenUser | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const [row] = await db<(SessionUser & { tokenId: string; stale: boolean })[]>`
    SELECT t.id AS "tokenId",
           (t.last_used_at IS NULL OR t.last_used_at < now() - make_interval(secs => ${LAST_USE_STEP_SECONDS})) AS stale,
           u.id, u.email, u.name, u.language, u.role, u.subscription_status AS "subscriptionStatus",
           u.time_zone AS "timeZone"
    FROM api_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = ${hashToken(token)} AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`;
  if (!row) return null;
  const { tokenId, stale, ...user } = row;
  if (stale) await db`UPDATE api_tokens SET last_used_at = now() WHERE id = ${tokenId}`;
  return { tokenId, user };
}
