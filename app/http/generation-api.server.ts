import { json } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { GenerationError } from '~/services/generation.server';
import { apiError } from '~/http/json-api.server';
import { apiHeaders, apiSession } from '~/http/api-session.server';

// Shared by the generation and results JSON routes (SPEC §7): the signed-in user or a 401, and
// GenerationError → `{ error }` with its status, in the request's language.

export type ApiUser = { userId: string; subscriptionStatus: 'free' | 'pro' | 'canceled'; headers: Headers };

export async function requireApiUser(request: Request): Promise<ApiUser | Response> {
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  return { userId: session.user.id, subscriptionStatus: session.user.subscriptionStatus, headers: apiHeaders(session) };
}

/** The translated `{ error }` response of a GenerationError; anything else is rethrown. */
export async function generationErrorResponse(request: Request, err: unknown, headers?: Headers): Promise<Response> {
  if (!(err instanceof GenerationError)) throw err;
  const t = await getT(request, 'generation');
  return apiError(err.status, t(err.key, err.params), { headers: headers ? Object.fromEntries(headers) : undefined });
}

/** Runs fn, answering its GenerationError as JSON. */
export async function withGenerationErrors(request: Request, user: ApiUser, fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    return generationErrorResponse(request, err, user.headers);
  }
}

export function ok(body: unknown, user: ApiUser, status = 200) {
  return json(body, { status, headers: user.headers });
}

/** `attachment` with an ASCII fallback and the UTF-8 name (RFC 6266/5987). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
