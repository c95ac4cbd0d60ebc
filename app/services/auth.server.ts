import crypto from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { sql, transaction, type Db, type TransactionSql } from '../../db/client';
import { enqueue } from '~/queue/boss';
import type { Language } from '~/i18n';
import { getCurrentCreditSummary, grantSignupCredits } from '~/services/ledger.server';
import { queueEmail } from '~/services/mail.server';
import { firstLimited, hit, type LimitState } from '~/services/rate-limit.server';
import { createSession, endOtherSessions, type SessionUser } from '~/services/sessions.server';
import { env } from '~/runtime/env.server';

// Accounts: registration, credentials, one-time password tokens. Owns users.password_hash and
// the password_tokens table.

// A const enum in the typings (isolatedModules cannot read it): 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;
const HASH_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const TOKEN_TTL_SECONDS = {
  'set-password': 24 * 60 * 60,
  'reset-password': 60 * 60,
} as const;
export type TokenPurpose = keyof typeof TOKEN_TTL_SECONDS;

/** The user object as the JSON API returns it (credits come with the ledger later). */
export type ApiUser = {
  name: string;
  email: string;
  creditsRemaining: number;
  topUpCreditsRemaining: number;
  subscriptionStatus: 'free' | 'pro' | 'canceled';
  /** The zone the pages show times in and read picked times in (IANA); null until known. */
  timeZone: string | null;
};

export async function toApiUser(user: Pick<SessionUser, 'id' | 'name' | 'email' | 'subscriptionStatus' | 'timeZone'>): Promise<ApiUser> {
  const credits = await getCurrentCreditSummary(user.id);
  return {
    name: user.name,
    email: user.email,
    creditsRemaining: credits.creditsRemaining,
    topUpCreditsRemaining: credits.topUpCreditsRemaining,
    subscriptionStatus: user.subscriptionStatus,
    timeZone: user.timeZone,
  };
}

export const normalizeEmail = (email: string) => email.trim();

export function hashPassword(password: string): Promise<string> {
  return hash(password, HASH_OPTIONS);
}

// Verifying against this keeps the time of "no such user" close to "wrong password".
let dummyHash: Promise<string> | undefined;

/** The user when e-mail and password match; null otherwise (unknown e-mail, wrong password, no password yet). */
export async function verifyCredentials(email: string, password: string, db: Db = sql): Promise<SessionUser | null> {
  const [row] = await db<(SessionUser & { passwordHash: string | null })[]>`
    SELECT id, email, name, language, role, subscription_status AS "subscriptionStatus", time_zone AS "timeZone",
           password_hash AS "passwordHash"
    FROM users WHERE lower(email) = lower(${normalizeEmail(email)})`;
  if (!row?.passwordHash) {
    dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return null;
  }
  const ok = await verify(row.passwordHash, password).catch(() => false);
  if (!ok) return null;
  const { passwordHash: _omit, ...user } = row;
  return user;
}

const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');

/** A fresh token (256 random bits); only its SHA-256 is stored, replacing any older token of the user. */
async function issueToken(userId: string, purpose: TokenPurpose, tx: TransactionSql): Promise<{ token: string; tokenHash: string }> {
  const token = crypto.randomBytes(32).toString('base64url');
  const tokenHash = sha256(token);
  await tx`
    INSERT INTO password_tokens (user_id, token_hash, purpose, expires_at)
    VALUES (${userId}, ${tokenHash}, ${purpose}, now() + make_interval(secs => ${TOKEN_TTL_SECONDS[purpose]}))
    ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, purpose = EXCLUDED.purpose,
      expires_at = EXCLUDED.expires_at, created_at = now()`;
  return { token, tokenHash };
}

export function passwordLink(token: string, email: string): string {
  const query = new URLSearchParams({ token, email });
  return `${env.APP_URL}/reset-password?${query.toString()}`;
}

export type RegisterResult = { ok: true; userId: string } | { ok: false; reason: 'exists' };

/** Creates the user and, in the same transaction, queues the set-password e-mail. Does not sign in. */
export async function registerUser(input: { name: string; email: string; language: Language }, db: Db = sql): Promise<RegisterResult> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  return transaction(db, async (tx) => {
    const [user] = await tx<{ id: string }[]>`
      INSERT INTO users (email, name, language) VALUES (${email}, ${name}, ${input.language})
      ON CONFLICT ((lower(email))) DO NOTHING
      RETURNING id`;
    if (!user) return { ok: false, reason: 'exists' } as const;
    await grantSignupCredits(user.id, tx); // the first Free grant, in the same transaction
    const { token, tokenHash } = await issueToken(user.id, 'set-password', tx);
    await queueEmail(
      {
        messageKey: `set:${user.id}:${tokenHash.slice(0, 16)}`,
        to: email,
        template: 'set-password',
        language: input.language,
        params: { name, link: passwordLink(token, email) },
      },
      tx,
    );
    return { ok: true, userId: user.id } as const;
  });
}

/**
 * Queues a reset e-mail when the address has an account; does nothing otherwise. The caller answers
 * the same either way (no account enumeration).
 */
export async function requestPasswordReset(input: { email: string; language: Language }, db: Db = sql): Promise<void> {
  await transaction(db, async (tx) => {
    const [user] = await tx<{ id: string; email: string; name: string }[]>`
      SELECT id, email, name FROM users WHERE lower(email) = lower(${normalizeEmail(input.email)})`;
    if (!user) return;
    const { token, tokenHash } = await issueToken(user.id, 'reset-password', tx);
    await queueEmail(
      {
        messageKey: `reset:${user.id}:${tokenHash.slice(0, 16)}`,
        to: user.email,
        template: 'reset-password',
        language: input.language,
        params: { name: user.name, link: passwordLink(token, user.email) },
      },
      tx,
    );
  });
}

export type ResetResult =
  { ok: true; userId: string; name: string; purpose: TokenPurpose; setCookie: string } | { ok: false; reason: 'invalid' | 'expired' };

export type TokenState = { state: 'valid' | 'expired'; purpose: TokenPurpose } | { state: 'invalid' };

/** What a password link is, without using it up: the page shows the right words, or no form at all. */
export async function inspectPasswordToken(input: { email: string; token: string }, db: Db = sql): Promise<TokenState> {
  const [row] = await db<{ purpose: TokenPurpose; expired: boolean }[]>`
    SELECT t.purpose, t.expires_at <= now() AS expired
    FROM password_tokens t JOIN users u ON u.id = t.user_id
    WHERE lower(u.email) = lower(${normalizeEmail(input.email)}) AND t.token_hash = ${sha256(input.token)}`;
  if (!row) return { state: 'invalid' };
  return { state: row.expired ? 'expired' : 'valid', purpose: row.purpose };
}

/**
 * Sets a new password with a one-time token and signs the user in (the link proved the address).
 * In one transaction: the token is consumed (so it works once), the password written, every other
 * session of the user ended, and a new session started.
 */
export async function resetPassword(input: { email: string; token: string; password: string }, db: Db = sql): Promise<ResetResult> {
  const presented = Buffer.from(sha256(input.token), 'hex');
  return transaction(db, async (tx): Promise<ResetResult> => {
    const [row] = await tx<{ userId: string; name: string; tokenHash: string; purpose: TokenPurpose; expired: boolean }[]>`
      SELECT t.user_id AS "userId", u.name, t.token_hash AS "tokenHash", t.purpose, t.expires_at <= now() AS expired
      FROM password_tokens t JOIN users u ON u.id = t.user_id
      WHERE lower(u.email) = lower(${normalizeEmail(input.email)})
      FOR UPDATE OF t`;
    const stored = row ? Buffer.from(row.tokenHash, 'hex') : Buffer.alloc(presented.length);
    const matches = stored.length === presented.length && crypto.timingSafeEqual(stored, presented);
    if (!row || !matches) return { ok: false, reason: 'invalid' };
    // Consume the token; an expired one is useless, so it goes too.
    const consumed = await tx`DELETE FROM password_tokens WHERE user_id = ${row.userId} AND token_hash = ${row.tokenHash} RETURNING 1`;
    if (consumed.count !== 1) return { ok: false, reason: 'invalid' };
    if (row.expired) return { ok: false, reason: 'expired' };
    // Hashed only for a good token, so bad links cost no hashing work.
    const passwordHash = await hashPassword(input.password);
    await tx`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${row.userId}`;
    await endOtherSessions(row.userId, undefined, tx);
    const { setCookie } = await createSession(row.userId, tx);
    return { ok: true, userId: row.userId, name: row.name, purpose: row.purpose, setCookie };
  });
}

// The flows the pages and the JSON API share: the abuse limits first, then the work.

export type RegisterAttempt = RegisterResult | { ok: false; reason: 'limited'; state: LimitState };

/** Registration within the limits per client address and per e-mail address. */
export async function attemptRegister(input: { name: string; email: string; language: Language; ip: string }): Promise<RegisterAttempt> {
  const limited = firstLimited(await Promise.all([hit('registerIp', input.ip), hit('registerEmail', input.email)]));
  if (limited) return { ok: false, reason: 'limited', state: limited };
  return registerUser(input);
}

export type ForgotAttempt = { ok: true } | { ok: false; reason: 'limited'; state: LimitState };

/**
 * A reset request within the limits; the same outcome, and the same work before the answer, whether
 * or not the address has an account: the lookup, the token and the e-mail happen in the
 * password-reset-request job (jobs/handlers/password-reset.ts).
 */
export async function attemptPasswordResetRequest(
  input: { email: string; language: Language; ip: string },
  db: Db = sql,
): Promise<ForgotAttempt> {
  const limited = firstLimited(await Promise.all([hit('forgotIp', input.ip, db), hit('forgotEmail', input.email, db)]));
  if (limited) return { ok: false, reason: 'limited', state: limited };
  await enqueue('password-reset-request', { email: normalizeEmail(input.email), language: input.language }, {}, db);
  return { ok: true };
}
