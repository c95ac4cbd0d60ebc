import type { AppLoadContext } from '@remix-run/node';
import { apiError } from '~/http/json-api.server';
import { getT } from '~/i18n.server';
import { clientKey, type LimitState } from '~/services/rate-limit.server';

// The HTTP side of the abuse limits (the service itself takes plain values): who the client is,
// and how a 429 reads.

/** The client key of a request, from the address server.ts put in the load context. */
export function clientKeyOf(context: AppLoadContext | { clientIp?: string } | undefined): string {
  return clientKey((context as { clientIp?: string } | undefined)?.clientIp);
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
  return apiError(429, await tooManyMessage(request, state), { headers: retryAfterHeaders(state) });
}
