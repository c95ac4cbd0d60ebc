import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { holdKey, LedgerError, reserve, type ReserveItem } from '../ledger.server';
import { providerKey } from '../api-keys.server';
import { getResult, type Result } from '../results.server';
import { checkModelAllowed, errors, GENERATE_QUEUE, holdExpiry, WAKE_CHANNEL } from './rules.server';

// A failed or canceled item goes back to processing in a new attempt: the attempt is part of its
// hold's key and its job's payload, so nothing of the attempt before can book this one.

/**
 * Generates a failed or canceled result again: a new attempt with a new hold (402 when short) and
 * a new job, in one transaction. The UPDATE locks the row, so a delete or clear racing the retry
 * is serialized with it: a delete that committed first leaves nothing to update (404, nothing
 * reserved); one that comes later waits and voids the new hold (deleteRows).
 */
export async function retryResult(userId: string, id: string, db: Db = sql): Promise<Result> {
  const row = await getResult(userId, id, db);
  if (row.status !== 'failed' && row.status !== 'canceled') throw errors.notRetryable();
  await checkModelAllowed(userId, row.model, db);
  const embed = row.type === 'text' && Boolean(row.metadata.settings?.embedImage);
  if (row.type === 'text' && !(await providerKey(userId, 'openrouter', db))) throw errors.noApiKey('text');
  if ((row.type === 'image' || embed) && !(await providerKey(userId, 'replicate', db))) throw errors.noApiKey(row.type);
  return transaction(db, async (tx) => {
    const [next] = await tx<{ attempt: number; credits: number }[]>`
      UPDATE generation_results SET attempt = attempt + 1, status = 'processing', error = NULL, error_code = NULL, error_params = NULL, deliveries = 0,
        lease_until = NULL, updated_at = now(), completed_at = NULL
      WHERE id = ${id} AND user_id = ${userId} AND status IN ('failed', 'canceled')
      RETURNING attempt, credits`;
    if (!next) {
      // Deleted meanwhile (the delete won the race) or retried by another request.
      const [still] = await tx`SELECT 1 FROM generation_results WHERE id = ${id} AND user_id = ${userId}`;
      throw still ? errors.notRetryable() : errors.notFound();
    }
    const item: ReserveItem = { key: holdKey(id, next.attempt), amount: next.credits, expiresAt: holdExpiry(1) };
    try {
      await reserve(userId, [item], tx);
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'insufficient_credits') throw errors.insufficientCredits();
      throw err;
    }
    await enqueueMany(GENERATE_QUEUE, [{ payload: { resultId: id, userId, attempt: next.attempt }, priority: 0 }], tx);
    await tx`SELECT pg_notify(${WAKE_CHANNEL}, ${id})`;
    // Read in the transaction: a delete committed right after must not turn a done retry into a 404.
    return getResult(userId, id, tx);
  });
}
