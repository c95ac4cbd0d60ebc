import { memoPerRequest } from '~/runtime/request-scope.server';
import { browserTimeZone, hasTimeZoneCookie } from '~/runtime/time-zone.server';
import { getSession, type SessionUser } from '~/services/sessions.server';
import { defaultUserTimeZone } from '~/services/user-time-zone.server';
import { DEFAULT_TIME_ZONE, settableTimeZone, validTimeZone } from '~/utils/time-zone';

/** The zone of a request's times, and whether it is known (false: UTC for want of any zone). */
export type ReaderZone = { timeZone: string; known: boolean };

/**
 * The zone this request shows times in and reads picked dates and times in: the signed-in user's
 * setting; for a user without one, the browser's (the `tz` cookie), kept as their setting from then
 * on so pages without JavaScript use it too; for a visitor, the browser's. UTC until a zone is known.
 * `known` is false only for a signed-in user without a zone whose browser has not run the page's
 * script yet (its first page, or no JavaScript).
 */
export async function readerZone(request: Request, user?: SessionUser | null): Promise<ReaderZone> {
  const who = user === undefined ? ((await getSession(request))?.user ?? null) : user;
  const own = validTimeZone(who?.timeZone);
  if (own) return { timeZone: own, known: true };
  if (!who) return { timeZone: browserTimeZone(request) ?? DEFAULT_TIME_ZONE, known: true };
  const browser = settableTimeZone(browserTimeZone(request));
  if (!browser) return { timeZone: DEFAULT_TIME_ZONE, known: hasTimeZoneCookie(request) };
  // Every loader of the page asks: one write per request, and a failed write only skips the default.
  const zone = await memoPerRequest(`default-time-zone:${who.id}`, () => defaultUserTimeZone(who.id, browser).catch(() => browser));
  return { timeZone: zone, known: true };
}

/** readerZone's zone. */
export async function readerTimeZone(request: Request, user?: SessionUser | null): Promise<string> {
  return (await readerZone(request, user)).timeZone;
}
