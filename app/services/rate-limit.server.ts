import crypto from 'node:crypto';
import { json } from '@remix-run/node';
import { sql } from '../../db/client';
import { getT } from '~/i18n.server';
import { env } from '~/utils/env.server';

// Abuse limits, kept in Postgres so they hold across instances. Fixed windows: each key counts hits
// from the first hit of its window; the window restarts once it has run out.
// The one place where the numbers live (tests read them from here).
export const LIMITS = {
  /** Failed logins for one e-mail address. */
  loginEmail: { max: 5, windowSeconds: 15 * 60 },
  /** Failed logins from one address (many e-mails). */
  loginIp: { max: 20, windowSeconds: 15 * 60 },
  /** Registration attempts from one address. */
  registerIp: { max: 10, windowSeconds: 60 * 60 },
  /** Registration attempts for one e-mail address. */
  registerEmail: { max: 3, windowSeconds: 60 * 60 },
  /** Password reset requests from one address. */
  forgotIp: { max: 10, windowSeconds: 60 * 60 },
  /** Password reset requests for one e-mail address. */
  forgotEmail: { max: 3, windowSeconds: 60 * 60 },
} as const satisfies Record<string, { max: number; windowSeconds: number }>;

export type LimitName = keyof typeof LIMITS;

/** The allowed count, raised (never lowered) by RATE_LIMIT_MULTIPLIER for load tests. */
export function maxFor(name: LimitName): number {
  return Math.floor(LIMITS[name].max * env.RATE_LIMIT_MULTIPLIER);
}

// Keys hold a hash of the subject, so the table holds no addresses.
function keyFor(name: LimitName, subject: string): string {
  const digest = crypto.createHash('sha256').update(subject.trim().toLowerCase()).digest('hex').slice(0, 32);
  return `${name}:${digest}`;
}

export type LimitState = { hits: number; limited: boolean; retryAfterSeconds: number };

function stateOf(name: LimitName, row: { hits: number; remaining: number } | undefined): LimitState {
  if (!row) return { hits: 0, limited: false, retryAfterSeconds: 0 };
  return { hits: row.hits, limited: row.hits > maxFor(name), retryAfterSeconds: Math.max(1, Math.ceil(row.remaining)) };
}

/** Counts one hit atomically and says whether this hit went over the limit. */
export async function hit(name: LimitName, subject: string): Promise<LimitState> {
  const seconds = LIMITS[name].windowSeconds;
  const [row] = await sql<{ hits: number; remaining: number }[]>`
    INSERT INTO rate_limits AS r (key, window_started_at, hits)
    VALUES (${keyFor(name, subject)}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN r.window_started_at <= now() - make_interval(secs => ${seconds}) THEN 1 ELSE r.hits + 1 END,
      window_started_at = CASE WHEN r.window_started_at <= now() - make_interval(secs => ${seconds}) THEN now() ELSE r.window_started_at END
    RETURNING hits, extract(epoch FROM r.window_started_at + make_interval(secs => ${seconds}) - now())::float8 AS remaining`;
  return stateOf(name, row);
}

/** Gives one hit back (an attempt counted up front that turned out fine). */
export async function refund(name: LimitName, subject: string): Promise<void> {
  await sql`UPDATE rate_limits SET hits = greatest(hits - 1, 0) WHERE key = ${keyFor(name, subject)}`;
}

/** Forgets a key (a successful login clears that e-mail's failures). */
export async function reset(name: LimitName, subject: string): Promise<void> {
  await sql`DELETE FROM rate_limits WHERE key = ${keyFor(name, subject)}`;
}

/** Removes windows that have run out; for a periodic sweep. */
export async function purgeExpiredRateLimits(): Promise<number> {
  const longest = Math.max(...Object.values(LIMITS).map((l) => l.windowSeconds));
  const result = await sql`DELETE FROM rate_limits WHERE window_started_at <= now() - make_interval(secs => ${longest})`;
  return result.count;
}

/** The first limited state of several, or null. */
export function firstLimited(states: LimitState[]): LimitState | null {
  const limited = states.filter((s) => s.limited);
  if (!limited.length) return null;
  return limited.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
}

/** The translated "Too many attempts. Try again in N minutes." */
export async function tooManyMessage(request: Request, state: LimitState): Promise<string> {
  const t = await getT(request, 'auth');
  const minutes = Math.max(1, Math.ceil(state.retryAfterSeconds / 60));
  return t('errors.tooManyAttempts', { minutes, count: minutes });
}

/** Headers for a 429 answer. */
export function retryAfterHeaders(state: LimitState): HeadersInit {
  return { 'Retry-After': String(state.retryAfterSeconds) };
}

/** A JSON 429 for the API routes. */
export async function tooManyJson(request: Request, state: LimitState) {
  return json({ error: await tooManyMessage(request, state) }, { status: 429, headers: retryAfterHeaders(state) });
}

/** The client address from the load context (see server.ts); never empty, so keys stay distinct. */
export function clientIpOf(context: { clientIp?: string } | undefined): string {
  const ip = context?.clientIp?.trim();
  return ip ? ip.replace(/^::ffff:/, '') : 'unknown';
}
