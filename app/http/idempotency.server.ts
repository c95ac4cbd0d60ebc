import { json } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { fingerprint, runOnce, validKey, type Answer, type TransactionSql } from '~/services/idempotency.server';
import { apiError } from '~/http/json-api.server';

// The HTTP side of Idempotency-Key (issue 23 §2; the rules are in the service): the header read
// and checked, the body's fingerprint, and the outcome as a response. A replay carries
// `Idempotent-Replayed: true` (Stripe's header). A request still in flight with the key is waited
// for (up to 10 s), then answered 409 to be retried.

/** Answers work's result once per Idempotency-Key (each time without the header). */
export async function idempotent(
  request: Request,
  userId: string,
  body: unknown,
  headers: Headers,
  work: (tx: TransactionSql) => Promise<Answer>,
): Promise<Response> {
  const key = request.headers.get('Idempotency-Key');
  const init = Object.fromEntries(headers);
  if (key !== null && !validKey(key))
    return apiError(400, (await getT(request, 'tokens'))('errors.idempotencyKeyInvalid'), { headers: init });
  const outcome = await runOnce(userId, key, fingerprint(request.method, new URL(request.url).pathname, body), work);
  if (outcome.kind === 'fresh') return json(outcome.answer.body, { status: outcome.answer.status, headers });
  if (outcome.kind === 'replayed') {
    const replay = new Headers(headers);
    replay.set('Idempotent-Replayed', 'true');
    return json(outcome.answer.body, { status: outcome.answer.status, headers: replay });
  }
  const t = await getT(request, 'tokens');
  if (outcome.kind === 'mismatch') return apiError(422, t('errors.idempotencyMismatch'), { headers: init });
  return apiError(409, t('errors.idempotencyBusy'), { headers: { ...init, 'Retry-After': '1' } });
}
