import { getT, languageFromHeaders } from '~/i18n.server';
import { singleton } from '~/utils/singleton.server';

// While PostgreSQL is unreachable, pages answer a translated 503 at once instead of a 500, and the
// app recovers by itself when the database returns (the pool reconnects on the next query).

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // PostgreSQL: shutting down, starting up, too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** True when err says the database cannot be reached (not a bug in a query). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const inner = (err as { errors?: unknown }).errors; // AggregateError of several addresses
  return Array.isArray(inner) && inner.some(isDatabaseUnavailable);
}

type State = { down: boolean; failed: WeakSet<Request> };
const state = () => singleton<State>('databaseAvailability', () => ({ down: false, failed: new WeakSet() }));

/** Called by entry.server's handleError: remembers that this request failed for want of a database. */
export function noteDatabaseError(err: unknown, request: Request): boolean {
  if (!isDatabaseUnavailable(err)) return false;
  state().down = true;
  state().failed.add(request);
  return true;
}

export const failedForDatabase = (request: Request) => state().failed.has(request);
export const databaseMarkedDown = () => state().down;
export const markDatabaseUp = () => void (state().down = false);

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
