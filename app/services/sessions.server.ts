import crypto from 'node:crypto';
import { createCookie, redirect } from '@remix-run/node';
import { sql, type Db } from '../../db/client';
import { env } from '~/runtime/env.server';
import { memoPerRequest } from '~/runtime/request-scope.server';

// Sessions live in Postgres; the cookie carries only the signed session id. The row stores a
// SHA-256 of the id so a database leak does not hand out live sessions.
const SESSION_DAYS = 30;
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000;
// Extend a rolling session at most once a day, so reads stay reads.
const ROLL_AFTER_MS = 24 * 60 * 60 * 1000;

export type SessionUser = {
  id: string;
  email: string;
  name: string;
  language: 'en' | 'zh-HK';
  role: 'user' | 'admin';
  subscriptionStatus: 'free' | 'pro' | 'canceled';
  /** Their IANA time zone; null until a browser told it or they chose one. */
  timeZone: string | null;
};

export type CurrentSession = { id: string; user: SessionUser; setCookie?: string };

let cookie: ReturnType<typeof createCookie> | undefined;
function sessionCookie() {
  cookie ??= createCookie('__session', {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: env.NODE_ENV === 'production' && env.APP_URL.startsWith('https:'),
    secrets: [env.SESSION_SECRET],
    maxAge: SESSION_MS / 1000,
  });
  return cookie;
}

const hashId = (id: string) => crypto.createHash('sha256').update(id).digest('hex');

/** Starts a session for the user (in the caller's transaction when given one) and returns the Set-Cookie value. */
export async function createSession(userId: string, db: Db = sql): Promise<{ id: string; setCookie: string }> {
  const id = crypto.randomBytes(32).toString('base64url');
  await db`INSERT INTO sessions (id, user_id, expires_at)
            VALUES (${hashId(id)}, ${userId}, now() + make_interval(days => ${SESSION_DAYS}))`;
  return { id, setCookie: await sessionCookie().serialize(id) };
}

async function sessionIdFrom(request: Request): Promise<string | null> {
  const header = request.headers.get('Cookie');
  if (!header || !header.includes('__session=')) return null;
  // Every loader of a page asks; the signature is checked (an HMAC through WebCrypto) once per request.
  return memoPerRequest(`session-cookie:${header}`, async () => {
    const value = await sessionCookie().parse(header);
    return typeof value === 'string' && value.length > 0 ? value : null;
  });
}

/** The signed-in session of the request, or null. Rolls the expiry forward once a day. */
export async function getSession(request: Request): Promise<CurrentSession | null> {
  const id = await sessionIdFrom(request);
  if (!id) return null;
  return memoPerRequest(`session:${id}`, () => loadSession(id));
}

async function loadSession(id: string): Promise<CurrentSession | null> {
  const [row] = await sql<(SessionUser & { expiresAt: Date })[]>`
    SELECT u.id, u.email, u.name, u.language, u.role, u.subscription_status AS "subscriptionStatus", u.time_zone AS "timeZone",
           s.expires_at AS "expiresAt"
    FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE s.id = ${hashId(id)} AND s.expires_at > now()`;
  if (!row) return null;
  const { expiresAt, ...user } = row;
  let setCookie: string | undefined;
  if (expiresAt.getTime() - Date.now() < SESSION_MS - ROLL_AFTER_MS) {
    await sql`UPDATE sessions SET expires_at = now() + make_interval(days => ${SESSION_DAYS}) WHERE id = ${hashId(id)}`;
    setCookie = await sessionCookie().serialize(id);
  }
  return { id, user, setCookie };
}

export async function getUser(request: Request): Promise<SessionUser | null> {
  return (await getSession(request))?.user ?? null;
}

/** The signed-in user, or a redirect to / (protected routes). */
export async function requireUser(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw redirect('/');
  return user;
}

/** Deletes the request's session row and returns the Set-Cookie that clears the cookie. */
export async function destroySession(request: Request, db: Db = sql): Promise<string> {
  const id = await sessionIdFrom(request);
  if (id) await db`DELETE FROM sessions WHERE id = ${hashId(id)}`;
  return sessionCookie().serialize('', { maxAge: 0, expires: new Date(0) });
}

/** Ends every session of the user except keepId (after a password change), in the caller's transaction when given one. */
export async function endOtherSessions(userId: string, keepId: string | undefined, db: Db = sql): Promise<void> {
  await db`DELETE FROM sessions WHERE user_id = ${userId} AND id <> ${keepId ? hashId(keepId) : ''}`;
}

/** Removes expired rows; called by a periodic job. */
export async function purgeExpiredSessions(db: Db = sql): Promise<number> {
  const result = await db`DELETE FROM sessions WHERE expires_at <= now()`;
  return result.count;
}
