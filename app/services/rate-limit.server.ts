import crypto from 'node:crypto';
import { sql, type Db } from '../../db/client';
import { env } from '~/runtime/env.server';

// Abuse limits, kept in Postgres so they hold across instances. Fixed windows: each key counts hits
// from the first hit of its window; the window restarts once it has run out.
// The one place where the numbers live (tests read them from here). This service takes plain values
// (an e-mail address, a client key from clientKey()); routes extract them from the request.
export const LIMITS = {
  /** Failed logins for one e-mail address from one client: the lock an attacker meets. */
  loginPair: { max: 5, windowSeconds: 15 * 60 },
  /** Failed logins from one client (across e-mail addresses). */
  loginIp: { max: 20, windowSeconds: 15 * 60 },
  /**
   * Failed logins for one e-mail address from anywhere. Only a brake, never a lock: past it, each
   * client may fail once an hour for that address (loginPairBraked), so a spread-out guesser slows
   * to a crawl while the owner's right password from a new client still gets checked.
   */
  loginEmail: { max: 50, windowSeconds: 60 * 60 },
  /** Failed logins for one e-mail address from one client while the address is braked. */
  loginPairBraked: { max: 1, windowSeconds: 60 * 60 },
  /** Registration attempts from one address. */
  registerIp: { max: 10, windowSeconds: 60 * 60 },
  /** Registration attempts for one e-mail address. */
  registerEmail: { max: 3, windowSeconds: 60 * 60 },
  /** Password reset requests from one address. */
  forgotIp: { max: 10, windowSeconds: 60 * 60 },
  /** Password reset requests for one e-mail address. */
  forgotEmail: { max: 3, windowSeconds: 60 * 60 },
  /** Page views reported by one client. */
  pageviewIp: { max: 300, windowSeconds: 60 },
  /** Title-generation calls per user (free of credits, so bounded: app/services/titles.server.ts). */
  titleUser: { max: 30, windowSeconds: 60 * 60 },
  /**
   * CSV uploads per user (the JSON API and the page form together): each is parsed on one of a few
   * threads (csv-parse-threads.server.ts), up to a second or more for a pathological 1 MB file.
   */
  csvUser: { max: 60, windowSeconds: 60 * 60 },
  /** CSV uploads from one client, across users. */
  csvIp: { max: 180, windowSeconds: 60 * 60 },
  /** Requests with one personal API token (app/http/api-context.server.ts), whoever sends them. */
  apiToken: { max: 600, windowSeconds: 60 },
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
export async function hit(name: LimitName, subject: string, db: Db = sql): Promise<LimitState> {
  const seconds = LIMITS[name].windowSeconds;
  const [row] = await db<{ hits: number; remaining: number }[]>`
    INSERT INTO rate_limits AS r (key, window_started_at, hits)
    VALUES (${keyFor(name, subject)}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN r.window_started_at <= now() - make_interval(secs => ${seconds}) THEN 1 ELSE r.hits + 1 END,
      window_started_at = CASE WHEN r.window_started_at <= now() - make_interval(secs => ${seconds}) THEN now() ELSE r.window_started_at END
    RETURNING hits, extract(epoch FROM r.window_started_at + make_interval(secs => ${seconds}) - now())::float8 AS remaining`;
  return stateOf(name, row);
}

/** Gives one hit back (an attempt counted up front that turned out fine). */
export async function refund(name: LimitName, subject: string, db: Db = sql): Promise<void> {
  await db`UPDATE rate_limits SET hits = greatest(hits - 1, 0) WHERE key = ${keyFor(name, subject)}`;
}

/** Forgets a key (a successful login clears that e-mail's failures). */
export async function reset(name: LimitName, subject: string, db: Db = sql): Promise<void> {
  await db`DELETE FROM rate_limits WHERE key = ${keyFor(name, subject)}`;
}

/** The current state of a key without counting a hit. */
export async function peek(name: LimitName, subject: string, db: Db = sql): Promise<LimitState> {
  const seconds = LIMITS[name].windowSeconds;
  const [row] = await db<{ hits: number; remaining: number }[]>`
    SELECT hits, extract(epoch FROM window_started_at + make_interval(secs => ${seconds}) - now())::float8 AS remaining
    FROM rate_limits WHERE key = ${keyFor(name, subject)} AND window_started_at > now() - make_interval(secs => ${seconds})`;
  return stateOf(name, row);
}

/** The subject of a per-(e-mail address, client) limit. */
export const pairSubject = (email: string, client: string) => `${email.trim().toLowerCase()}\u0000${client}`;

/** Removes windows that have run out; for a periodic sweep. */
export async function purgeExpiredRateLimits(db: Db = sql): Promise<number> {
  const longest = Math.max(...Object.values(LIMITS).map((l) => l.windowSeconds));
  const result = await db`DELETE FROM rate_limits WHERE window_started_at <= now() - make_interval(secs => ${longest})`;
  return result.count;
}

/** The first limited state of several, or null. */
export function firstLimited(states: LimitState[]): LimitState | null {
  const limited = states.filter((s) => s.limited);
  if (!limited.length) return null;
  return limited.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
}

/**
 * The key under which a client address is counted: IPv4 as is, IPv6 by its /64 (one subscriber
 * usually holds a whole /64, so counting single IPv6 addresses would let it rotate freely).
 */
export function clientKey(address: string | null | undefined): string {
  const ip = (address ?? '').trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const groups = expandIPv6(ip.split('%')[0]!);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip.toLowerCase();
}

/** The eight 16-bit groups of an IPv6 address (lower case, no leading zeros), or null if malformed. */
function expandIPv6(ip: string): string[] | null {
  const halves = ip.toLowerCase().split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s ? s.split(':') : []);
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4 forms) takes two groups.
  const last = tail.length ? tail : head;
  if (last.length && last[last.length - 1]!.includes('.')) {
    const v4 = last.pop()!.split('.').map(Number);
    if (v4.length !== 4 || v4.some((n) => !(n >= 0 && n <= 255))) return null;
    last.push(((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16).toString(16));
}
