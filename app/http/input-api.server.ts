import { json } from '@remix-run/node';
import { getT } from '~/i18n.server';
import type { SessionUser } from '~/services/sessions.server';
import { apiSession } from '~/http/api-session.server';

// Small helpers for the input tools' JSON routes.

/** The signed-in user, or a 401 JSON Response to return. */
export async function apiUser(request: Request): Promise<SessionUser | Response> {
  const session = await apiSession(request);
  return session instanceof Response ? session : session.user;
}

/** A JSON answer that is never cached. */
export function noStore<T>(data: T, status = 200) {
  return json(data, { status, headers: { 'Cache-Control': 'no-store' } });
}

export const inputsT = (request: Request) => getT(request, 'inputs');
