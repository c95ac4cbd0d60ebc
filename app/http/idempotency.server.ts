import { errorResponse } from '~/http/errors.server';
import { fingerprint, IdempotencyError, runOnce, validKey, type Answer, type TransactionSql } from '~/services/idempotency.server';
import { noStore } from '~/http/json-api.server';

// The HTTP side of Idempotency-Key (the rules are in the service): the header read
// and checked, the body's fingerprint, and the outcome as a response. A replay carries
// `Idempotent-Replayed: true` (Stripe's header). A request still in flight with the key is waited
// for (up to 10 s), then answered 409 to be retried.

/**
 * The answer of work, once per Idempotency-Key (each time without the header), with whether it is
 * a replay; or the refusal to return (a malformed key 400, another body 422, still running 409).
 * `input` is the request as the route's schema read it, so key order or a default spelled out
 * does not make another request.
 */
async function once(
  request: Request,
  userId: string,
  input: unknown,
  work: (tx: TransactionSql) => Promise<Answer>,
): Promise<(Answer & { replayed: boolean }) | Response> {
  const key = request.headers.get('Idempotency-Key');
  if (key !== null && !validKey(key)) return errorResponse(request, new IdempotencyError('idempotency_key_invalid'));
  const outcome = await runOnce(userId, key, fingerprint(request.method, new URL(request.url).pathname, input), work);
  if (outcome.kind === 'fresh' || outcome.kind === 'replayed') return { ...outcome.answer, replayed: outcome.kind === 'replayed' };
  if (outcome.kind === 'mismatch') return errorResponse(request, new IdempotencyError('idempotency_mismatch'));
  return errorResponse(request, new IdempotencyError('idempotency_busy'), { 'Retry-After': '1' });
}

/** The stored answer as it was given: status and body. */
const asGiven = (answer: Answer) => noStore(answer.body, { status: answer.status });

/**
 * work's answer as the response, once per Idempotency-Key; a replay says `Idempotent-Replayed:
 * true`. `respond` turns the stored answer into the response when the route answers more than it
 * stored (a publish stores its publication id and answers that publication's state now).
 */
export async function idempotent(
  request: Request,
  userId: string,
  input: unknown,
  work: (tx: TransactionSql) => Promise<Answer>,
  respond: (answer: Answer) => Response | Promise<Response> = asGiven,
): Promise<Response> {
  const answer = await once(request, userId, input, work);
  if (answer instanceof Response) return answer;
  const response = await respond(answer);
  if (answer.replayed) response.headers.set('Idempotent-Replayed', 'true');
  return response;
}
