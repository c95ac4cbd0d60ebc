import type PgBoss from 'pg-boss';
import { startBoss } from '~/queue/boss';
import { queues, type QueueName } from '~/queue/queues';
import { handleSendEmail } from './handlers/send-email';
import { handleLedgerMonthlyReset, handleLedgerSweepHolds } from './handlers/ledger';
import { handleMaintenancePurge } from './handlers/maintenance';
import { startGenerationLoop } from './generation-loop';
import { handlePasswordResetRequest } from './handlers/password-reset';
import { handleBillingDuplicate, handleBillingShortfall, handleStripeEvent } from './handlers/stripe-event';
import { handleWordPressPublish } from './handlers/wordpress-publish';
import { handleWebhookDeliver } from './handlers/webhook-deliver';
import { handleLinkRun } from './handlers/link-run';
import { handleImageObjectsDelete } from './handlers/image-objects';
import { handleResultFix } from './handlers/result-fix';

// `generate-item` runs in its own fetch/complete loop (jobs/generation-loop.ts), not work().
type WorkQueue = Exclude<QueueName, 'generate-item'>;
const handlers: Record<WorkQueue, (jobs: PgBoss.Job<unknown>[]) => Promise<void>> = {
  'send-email': handleSendEmail,
  'ledger-monthly-reset': handleLedgerMonthlyReset,
  'ledger-sweep-holds': handleLedgerSweepHolds,
  'maintenance-purge': handleMaintenancePurge,
  'password-reset-request': handlePasswordResetRequest,
  'stripe-event': handleStripeEvent,
  'billing-duplicate': handleBillingDuplicate,
  'billing-shortfall': handleBillingShortfall,
  'wordpress-publish': handleWordPressPublish,
  'webhook-deliver': handleWebhookDeliver,
  'link-run': handleLinkRun,
  'image-objects-delete': handleImageObjectsDelete,
  'result-fix': handleResultFix,
};

/** Starts pg-boss in worker mode and subscribes every queue's handler. */
export async function startWorkers(): Promise<PgBoss> {
  const boss = await startBoss('worker');
  for (const name of Object.keys(handlers) as WorkQueue[]) {
    const { workers = 1, ...work } = queues[name].work as PgBoss.WorkOptions & { workers?: number };
    for (let i = 0; i < workers; i++) await boss.work(name, work, handlers[name]);
  }
  // Cron schedules (pg-boss runs them once across all workers).
  for (const [name, q] of Object.entries(queues)) {
    if ('cron' in q) await boss.schedule(name, q.cron, {});
  }
  await startGenerationLoop();
  return boss;
}
