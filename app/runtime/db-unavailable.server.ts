import { getT, languageFromHeaders } from '~/i18n.server';
import { singleton } from '~/runtime/singleton.server';

// While PostgreSQL is unreachable, pages, API calls and data requests answer a translated 503 with
// Retry-After instead of a 500, and the app recovers by itself when the database returns (the pool
// reconnects on the next query). Two kinds of failure are told apart: a connection that was lost
// while in use (a terminated backend, a reset socket: the next connection may well work, so a safe
// request is worth one more try) and a database that cannot be reached at all (refused, timed out,
// starting up, full: every request would fail alike, so the server answers 503 at once for a while).

/** The connection in use went away: postgres.js, Node's sockets, Postgres's own "your session is over". */
const LOST_CODES = new Set([
  'CONNECTION_CLOSED',
  'ECONNRESET',
  'EPIPE',
  // PostgreSQL: terminated by an administrator or a fast shutdown; a crashed sibling; idle too long.
  '57P01',
  '57P02',
  '57P05',
  // PostgreSQL class 08: the connection failed or does not exist.
  '08000',
  '08003',
  '08006',
]);

/** The database cannot be reached at all. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  // postgres.js: the pool was ended (the process is stopping).
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // PostgreSQL: starting up or shutting down; too many connections; could not connect; refused.
  '57P03',
  '53300',
  '08001',
  '08004',
]);

// node-postgres (under pg-boss) says it in words only, with no code.
const LOST_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
]);
const UNREACHABLE_MESSAGES = new Set(['Connection terminated due to connection timeout', 'timeout exceeded when trying to connect']);

type Failure = 'lost' | 'unreachable';

/** How err says the database failed us, or null when it is something else (a bug, a bad query). */
function databaseFailure(err: unknown, depth = 0): Failure | null {
  if (!err || typeof err !== 'object' || depth > 4) return null;
  const { code, severity, message, errors, cause } = err as {
    code?: unknown;
    severity?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (LOST_CODES.has(code)) return 'lost';
    if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  }
  // A FATAL (or PANIC) error from Postgres ends the session, whatever its code: the request lost its
  // connection, its query was not wrong.
  if (severity === 'FATAL' || severity === 'PANIC') return 'lost';
  if (typeof message === 'string' && code === undefined) {
    if (LOST_MESSAGES.has(message)) return 'lost';
    if (UNREACHABLE_MESSAGES.has(message)) return 'unreachable';
  }
  // An AggregateError of several addresses (all of them failed), or a library's wrapper of the cause.
  if (Array.isArray(errors) && errors.length > 0) {
    const each = errors.map((e) => databaseFailure(e, depth + 1));
    if (each.every((f) => f !== null)) return each.includes('unreachable') ? 'unreachable' : 'lost';
  }
  return databaseFailure(cause, depth + 1);
}

/** True when err says the database cannot be reached or the connection was lost (not a bug in a query). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailure(err) !== null;
}

/** True when err says only that the connection in use went away: a fresh one may work at once. */
export function isConnectionLost(err: unknown): boolean {
  return databaseFailure(err) === 'lost';
}

const state = () => singleton<{ down: boolean }>('databaseAvailability', () => ({ down: false }));

/**
 * Called by entry.server's handleError: true when err is a failure for want of the database. A
 * database that cannot be reached is marked down, so the requests after it are answered at once
 * until a probe finds it back; a lost connection alone is not, as the next one usually works.
 */
export function noteDatabaseError(err: unknown): boolean {
  const failure = databaseFailure(err);
  if (failure === 'unreachable') state().down = true;
  return failure !== null;
}

export const databaseMarkedDown = () => state().down;
export const markDatabaseUp = () => void (state().down = false);

/** What a log line says of a database error: its code and message, never a stack (it is an outage, not a bug). */
export function databaseErrorFields(err: unknown): { code?: string; reason: string } {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return { ...(typeof code === 'string' ? { code } : {}), reason: typeof message === 'string' ? message : String(err) };
}

export const RETRY_AFTER_SECONDS = 5;

/** Why a 503: the database is unreachable, or the web process's request line is full. */
export type UnavailableReason = 'database' | 'busy';
const MESSAGE_KEY = { database: 'errors.unavailable', busy: 'errors.busy' } as const;

/** A self-contained page (no scripts, no styles to load) in the visitor's language. */
export async function unavailableHtml(
  cookie: string | null | undefined,
  acceptLanguage: string | null | undefined,
  reason: UnavailableReason = 'database',
): Promise<string> {
  const language = languageFromHeaders(cookie, acceptLanguage);
  const t = await getT(language, 'common');
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const title = esc(t('errors.unavailableTitle'));
  return `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS * 2}"></head>
<body style="font-family:system-ui,sans-serif;background:#f8fafc;color:#0f172a;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0;text-align:center"><main style="max-width:28rem;padding:1.5rem"><p style="color:#4338ca;font-weight:600">503</p><h1>${title}</h1><p>${esc(t(MESSAGE_KEY[reason]))}</p></main></body></html>`;
}

/** The JSON body of a 503 for API and data requests. */
export async function unavailableJson(
  cookie: string | null | undefined,
  acceptLanguage: string | null | undefined,
  reason: UnavailableReason = 'database',
) {
  const t = await getT(languageFromHeaders(cookie, acceptLanguage), 'common');
  return { error: t(MESSAGE_KEY[reason]) };
}

/**
 * Runs a read, and runs it once more when its connection was lost under it (a terminated backend:
 * postgres.js drops that connection and the pool opens a fresh one). Only for work that is safe to
 * repeat; a database that cannot be reached fails at once, as the second try would too.
 */
export async function onceMoreIfLost<T>(read: () => PromiseLike<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!isConnectionLost(err)) throw err;
    return await read();
  }
}
