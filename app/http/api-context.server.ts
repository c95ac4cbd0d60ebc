import type { ZodTypeAny, output } from 'zod';
import type { Language } from '~/i18n';
import { detectLanguage, getT, type Namespace } from '~/i18n.server';
import { ApiTokenError, authenticateApiToken } from '~/services/api-tokens.server';
import { hit } from '~/services/rate-limit.server';
import { getSession, type SessionUser } from '~/services/sessions.server';
import type { Translate } from '~/utils/auth-schemas';
import { bearerChallenge, bearerToken } from '~/http/api-bearer.server';
import { errorResponse } from '~/http/errors.server';
import { apiError, methodNotAllowed, noStore, readJsonObject, validationError } from '~/http/json-api.server';
import { tooManyJson } from '~/http/rate-limit-response.server';

// The one context of the signed-in JSON routes: who calls, in which language, and how to
// answer. Every answer given through it carries the rolling session cookie (the session's expiry
// moves forward once a day, and a client that never loads a page must still receive it).

/** Who is calling, and the cookie to forward when their session was extended (never for a token). */
export type ApiCaller = { user: SessionUser; setCookie?: string; tokenId?: string };

/**
 * The caller of a JSON request: null without credentials (then: 401), or the Response to return
 * for a bad API token (401) or one over its rate limit (429). The one place an API request is
 * authenticated: `Authorization: Bearer pf_live_…` (a personal API token) when present,
 * and then the token alone (a cookie beside it is not consulted); else the session cookie.
 */
export async function apiCaller(request: Request): Promise<ApiCaller | Response | null> {
  const token = bearerToken(request.headers.get('Authorization'));
  if (token === null) {
    const session = await getSession(request);
    return session ? { user: session.user, setCookie: session.setCookie } : null;
  }
  const found = token ? await authenticateApiToken(token) : null;
  if (!found) {
    const refusal = new ApiTokenError(token ? 'invalid_token' : 'malformed_authorization');
    return errorResponse(request, refusal, { 'WWW-Authenticate': bearerChallenge('invalid_token') });
  }
  // Per token, across every process (the limit lives in Postgres).
  const limit = await hit('apiToken', found.tokenId);
  if (limit.limited) return tooManyJson(request, limit);
  return { user: found.user, tokenId: found.tokenId };
}

export type ApiContext = {
  user: SessionUser;
  language: Language;
  /** A translator in the namespace the route asked for. */
  t: Translate;
  /** The session cookie to forward, when the session was extended by this request. */
  setCookie?: string;
  /** A successful JSON answer (never cached); `init` a status or more headers. */
  ok(data: unknown, init?: number | { status?: number; headers?: HeadersInit }): Response;
  /** A `{ error, fields? }` answer with a status the route decides (for refusals a service does not throw). */
  error(status: number, message: string, fields?: Record<string, string[]>): Response;
  /** The JSON object body; throws the 400 answer (wrong type, malformed, not an object) to withApi. */
  body(): Promise<Record<string, unknown>>;
  /** The JSON body checked against a schema; throws the 400 answer (with every field's messages). */
  read<S extends ZodTypeAny>(schema: S): Promise<output<S>>;
};

/** The context of a signed-in JSON request, or the translated 401 to return. */
export async function apiContext(request: Request, ns: Namespace = 'common'): Promise<ApiContext | Response> {
  const caller = await apiCaller(request);
  if (caller instanceof Response) return caller;
  if (!caller) {
    const message = (await getT(request, 'auth'))('errors.unauthenticated');
    return apiError(401, message, { headers: { 'WWW-Authenticate': bearerChallenge() } });
  }
  const [language, t] = await Promise.all([detectLanguage(request), getT(request, ns)]);
  const body = async () => {
    const value = await readJsonObject(request);
    if (value instanceof Response) throw value;
    return value;
  };
  return {
    user: caller.user,
    language,
    t: t as Translate,
    setCookie: caller.setCookie,
    ok: (data, init) => noStore(data, init),
    error: (status, message, fields) => apiError(status, message, { fields }),
    body,
    async read(schema) {
      const parsed = schema.safeParse(await body());
      if (!parsed.success) throw validationError(parsed.error);
      return parsed.data;
    },
  };
}

export type ApiOptions = {
  /** The methods this handler takes (others: 405 before anything else); any when unset. */
  methods?: readonly string[];
  /** The Allow header of that 405 (default: `methods`). */
  allow?: string;
};

/**
 * Runs a signed-in JSON handler: 405 for another method, 401 without a caller, then the handler.
 * A Response it throws (ctx.read's 400) is the answer; a service refusal (AppError) becomes its
 * status and translated message (errors.server.ts); and every answer carries the rolling cookie.
 */
export async function withApi(
  request: Request,
  ns: Namespace,
  handler: (ctx: ApiContext) => Promise<Response>,
  options: ApiOptions = {},
): Promise<Response> {
  if (options.methods && !options.methods.includes(request.method)) {
    return methodNotAllowed(request, options.allow ?? options.methods.join(', '));
  }
  const ctx = await apiContext(request, ns);
  if (ctx instanceof Response) return ctx;
  let response: Response;
  try {
    response = await handler(ctx);
  } catch (error) {
    response = error instanceof Response ? error : await errorResponse(request, error);
  }
  return forwardCookie(response, ctx.setCookie);
}

/** Adds the rolling session cookie to an answer that does not carry it yet. */
export function forwardCookie(response: Response, setCookie: string | undefined): Response {
  if (!setCookie || response.headers.getSetCookie().includes(setCookie)) return response;
  response.headers.append('Set-Cookie', setCookie);
  return response;
}
