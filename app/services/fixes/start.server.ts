import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { fixCost, type FixKind } from '~/catalogue';
import { isOffered, type AddableSection } from '~/utils/quality/fixes';
import type { QualityReport } from '~/utils/quality/report';
import { ensureCurrentPeriod, fixHoldKey, LedgerError, reserve, settleHolds } from '../ledger.server';
import { providerKey } from '../api-keys.server';
import { creditsSpent } from '../webhooks.server';
import { checkModelAllowed, errors, holdExpiry, isUuid } from '../generation/rules.server';

// Asking for a fix of a completed text post: in ONE transaction the fix's row, its credit hold and
// its `result-fix` job (run.server.ts does the work). The post's row is locked meanwhile, so two
// clicks are serialised: the second finds the first running (one fix at a time per post, an index
// of migration 040) and is refused, uncharged.

export const FIX_QUEUE = 'result-fix';

export type FixRequest = {
  kind: FixKind;
  section?: AddableSection | null;
  /** The post's `updatedAt` as the asker saw it: a post changed since (by an edit or a fix) is not fixed blind. */
  basis?: string | null;
  /** The credits the asker was shown: a fix whose price moved since is refused. */
  cost?: number | null;
};

export type StartedFix = { fixId: string; credits: number };

/** A fix still `processing` this long after it was asked for was lost (its job gave up): it ends failed, uncharged. */
const ABANDONED_AFTER = '1 hour';

type Row = { type: string; status: string; model: string; hasContent: boolean; quality: QualityReport | null; updatedAt: Date };

/**
 * Starts a fix of the owner's completed text result: checks it is offered by the post's report
 * (regenerate always is), the model is still the owner's to use and a text key exists, then holds
 * its credits (402 when short) and queues it. Throws GenerationError.
 */
export async function startFix(userId: string, resultId: string, request: FixRequest, db: Db = sql): Promise<StartedFix> {
  if (!isUuid(resultId)) throw errors.notFound();
  const section = request.kind === 'add_section' ? (request.section ?? null) : null;
  return transaction(db, async (tx) => {
    const [row] = await tx<Row[]>`
      SELECT type, status, model, content IS NOT NULL AS "hasContent", quality, updated_at AS "updatedAt"
      FROM generation_results WHERE id = ${resultId} AND user_id = ${userId} FOR UPDATE`;
    if (!row) throw errors.notFound();
    if (row.type !== 'text' || row.status !== 'completed' || !row.hasContent) throw errors.notFixable();
    if (request.basis && new Date(request.basis).getTime() !== row.updatedAt.getTime()) throw errors.resultChanged();
    if (!isOffered(row.quality, request.kind, section)) throw errors.notFixable();
    const model = await checkModelAllowed(userId, row.model, tx);
    if (!(await providerKey(userId, 'openrouter', tx))) throw errors.noApiKey('text');
    const credits = fixCost(request.kind, model);
    if (request.cost != null && request.cost !== credits) throw errors.costChanged(credits);
    await endAbandoned(resultId, tx);
    const [fix] = await tx<{ id: string }[]>`
      INSERT INTO result_fixes (user_id, result_id, kind, section, credits, base_updated_at)
      SELECT ${userId}, ${resultId}, ${request.kind}, ${section}, ${credits}, updated_at FROM generation_results WHERE id = ${resultId}
      ON CONFLICT (result_id) WHERE status = 'processing' DO NOTHING
      RETURNING id`;
    if (!fix) throw errors.fixRunning();
    await ensureCurrentPeriod(userId, undefined, tx);
    try {
      await reserve(userId, [{ key: fixHoldKey(resultId, fix.id), amount: credits, expiresAt: holdExpiry(1) }], tx);
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'insufficient_credits') throw errors.insufficientCredits();
      throw err;
    }
    await creditsSpent(userId, credits, tx);
    await enqueueMany(FIX_QUEUE, [{ payload: { fixId: fix.id, resultId, userId } }], tx);
    return { fixId: fix.id, credits };
  });
}

/** A fix its job never finished (every attempt failed for a reason of ours): failed, its hold released. */
async function endAbandoned(resultId: string, tx: Db): Promise<void> {
  const stale = await tx<{ id: string }[]>`
    UPDATE result_fixes SET status = 'failed', error_code = 'interrupted', finished_at = now()
    WHERE result_id = ${resultId} AND status = 'processing' AND created_at < now() - ${ABANDONED_AFTER}::interval
    RETURNING id`;
  // A hold the sweeper released already answers this void as done.
  await settleHolds(
    stale.map((f) => fixHoldKey(resultId, f.id)),
    'void',
    tx,
  );
}
