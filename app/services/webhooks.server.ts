import crypto from 'node:crypto';
import type { Fragment } from 'postgres';
import { Webhook } from 'standardwebhooks';
import { LOW_CREDIT_THRESHOLD } from '~/catalogue';
import { enqueueMany } from '~/queue/boss';
import { env } from '~/runtime/env.server';
import { AppError, type ErrorParams } from '~/utils/app-error';
import { getLogger } from '~/runtime/logger.server';
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_TEST_EVENT, type WebhookDeliveryFailure, type WebhookEventType } from '~/utils/webhook-events';
import type { QualityReport } from '~/utils/quality/report';
import { sql, transaction, type Db, type TransactionSql } from '../../db/client';
import { getCreditSummary } from './ledger.server';
import { queueEmail } from './mail.server';
import { checkUrlAddresses, OutboundError, outboundRequest, type OutboundErrorCode } from './outbound.server';
import { open, seal } from './secrets.server';

// Signed outgoing webhooks. An event is written in the transaction of the change that
// causes it (webhook_events, the outbox), with one delivery per subscribed endpoint and the first
// attempt's job. Each attempt signs the same event id (webhook-id) with the endpoint's secret per
// the Standard Webhooks spec; a failed attempt books the next one (doubling delay) in the
// transaction that records it, until WEBHOOK_RETRY_WINDOW_HOURS have passed. An endpoint whose
// deliveries have all failed for 3 days is turned off and its owner e-mailed.

export const WEBHOOK_ERROR_CODES = ['not_found', 'limit', 'blocked_url'] as const;
export type WebhookErrorCode = (typeof WEBHOOK_ERROR_CODES)[number];
/** Why a URL is refused: the outbound guard's checks made before any call. */
export type BlockedUrlReason = Extract<OutboundErrorCode, 'bad_url' | 'bad_scheme' | 'blocked_address'>;
export const BLOCKED_URL_REASONS: readonly BlockedUrlReason[] = ['bad_url', 'bad_scheme', 'blocked_address'];

/** A refusal about webhook endpoints, read as `developer:webhooks.errors.*` (a refused URL says why). */
export class WebhookError extends AppError<'developer', WebhookErrorCode> {
  constructor(code: WebhookErrorCode, message: string, reason?: BlockedUrlReason) {
    const key = code === 'blocked_url' ? `webhooks.errors.blocked.${reason ?? 'blocked_address'}` : `webhooks.errors.${code}`;
    super(
      'developer',
      code,
      key,
      message,
      code === 'limit' ? { max: MAX_WEBHOOK_ENDPOINTS } : {},
      code === 'not_found' ? undefined : 'url',
    );
    this.name = 'WebhookError';
  }
}

const DELIVER_QUEUE = 'webhook-deliver';
/** Endpoints failing this long (every delivery, no success) are turned off. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
/** The longest wait between two attempts. */
const MAX_DELAY_SECONDS = 6 * 3600;
/** How long an attempt in flight holds its delivery (the send's deadline plus slack). */
const CLAIM_SECONDS = 60;
const SEND_TIMEOUT_MS = 15_000;
/** Deliveries shown per endpoint in the log. */
const LOG_SIZE = 20;

const secretContext = (endpointId: string) => `webhook-secret:${endpointId}`;

/** A new signing secret in the Standard Webhooks form: whsec_ + base64 of 24 random bytes. */
function newSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

/** msg_ + 32 hex characters: the event's webhook-id. */
function newEventId(): string {
  return `msg_${crypto.randomUUID().replace(/-/g, '')}`;
}

/** The delay before attempt `next` (2, 3, ...): the base, doubling, at most 6 hours. */
export function retryDelaySeconds(next: number, base = env.WEBHOOK_RETRY_BASE_SECONDS): number {
  return Math.min(base * 2 ** Math.max(0, next - 2), MAX_DELAY_SECONDS);
}

// ---------------------------------------------------------------------------------------------
// Endpoints (the settings page)

export type WebhookDelivery = {
  id: string;
  eventId: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  /** Why the last attempt failed (webhook-events.ts's deliveryFailureKey reads it; `unknown` for a row stored before codes). */
  lastErrorCode: string | null;
  lastErrorParams: ErrorParams | null;
  nextAttemptAt: string | null;
  createdAt: string;
};

export type WebhookEndpoint = {
  id: string;
  url: string;
  events: string[];
  secretHint: string;
  enabled: boolean;
  disabledAt: string | null;
  failingSince: string | null;
  createdAt: string;
  deliveries: WebhookDelivery[];
};

/**
 * Refuses a URL the SSRF guard refuses for WordPress sites (scheme, credentials, a host that is or
 * resolves to a private or reserved address). Delivery is guarded again at every connection.
 */
async function guardUrl(raw: string): Promise<string> {
  try {
    return (await checkUrlAddresses(raw)).toString();
  } catch (err) {
    if (err instanceof OutboundError) {
      const reason = (BLOCKED_URL_REASONS as readonly string[]).includes(err.code) ? (err.code as BlockedUrlReason) : undefined;
      throw new WebhookError('blocked_url', err.message, reason);
    }
    throw err;
  }
}

/** Adds an endpoint; returns it and its secret (the only time the secret is shown). */
export async function createEndpoint(
  userId: string,
  input: { url: string; events: readonly WebhookEventType[] },
  db: Db = sql,
): Promise<{ id: string; secret: string }> {
  const url = await guardUrl(input.url);
  const id = crypto.randomUUID();
  const secret = newSecret();
  return transaction(db, async (tx) => {
    // One at a time per owner, so the limit holds under concurrent adds.
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`webhook-endpoints:${userId}`}))`;
    const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = ${userId}`;
    if (count!.n >= MAX_WEBHOOK_ENDPOINTS) throw new WebhookError('limit', 'Too many webhook endpoints');
    await tx`
      INSERT INTO webhook_endpoints (id, user_id, url, events, secret_sealed, secret_hint)
      VALUES (${id}, ${userId}, ${url}, ${[...input.events]}::text[], ${seal(secret, secretContext(id))}, ${secret.slice(-4)})`;
    return { id, secret };
  });
}

export async function deleteEndpoint(userId: string, endpointId: string, db: Db = sql): Promise<void> {
  if (!isUuid(endpointId)) throw notFound();
  const gone = await db`DELETE FROM webhook_endpoints WHERE id = ${endpointId} AND user_id = ${userId} RETURNING id`;
  if (gone.length === 0) throw notFound();
}

/** A new secret at once (the old one stops signing); returns it, shown once. */
export async function rotateSecret(userId: string, endpointId: string, db: Db = sql): Promise<{ secret: string }> {
  if (!isUuid(endpointId)) throw notFound();
  const secret = newSecret();
  const done = await db`
    UPDATE webhook_endpoints SET secret_sealed = ${seal(secret, secretContext(endpointId))}, secret_hint = ${secret.slice(-4)},
      updated_at = now()
    WHERE id = ${endpointId} AND user_id = ${userId} RETURNING id`;
  if (done.length === 0) throw notFound();
  return { secret };
}

/** Turns a disabled endpoint on again (its failure clock restarts). */
export async function enableEndpoint(userId: string, endpointId: string, db: Db = sql): Promise<void> {
  if (!isUuid(endpointId)) throw notFound();
  const done = await db`
    UPDATE webhook_endpoints SET enabled = true, disabled_at = NULL, failing_since = NULL, updated_at = now()
    WHERE id = ${endpointId} AND user_id = ${userId} RETURNING id`;
  if (done.length === 0) throw notFound();
}

/** The owner's endpoints, each with its latest deliveries. */
export async function listEndpoints(userId: string, db: Db = sql): Promise<WebhookEndpoint[]> {
  const endpoints = await db<
    {
      id: string;
      url: string;
      events: string[];
      secretHint: string;
      enabled: boolean;
      disabledAt: Date | null;
      failingSince: Date | null;
      createdAt: Date;
    }[]
  >`
    SELECT id, url, events, secret_hint AS "secretHint", enabled, disabled_at AS "disabledAt", failing_since AS "failingSince",
      created_at AS "createdAt"
    FROM webhook_endpoints WHERE user_id = ${userId} ORDER BY created_at`;
  if (endpoints.length === 0) return [];
  const deliveries = await db<
    {
      endpointId: string;
      id: string;
      eventId: string;
      type: string;
      status: WebhookDelivery['status'];
      attempts: number;
      lastStatus: number | null;
      lastLatencyMs: number | null;
      lastErrorCode: string | null;
      lastErrorParams: ErrorParams | null;
      nextAttemptAt: Date | null;
      createdAt: Date;
    }[]
  >`
    SELECT d.endpoint_id AS "endpointId", d.id, d.event_id AS "eventId", e.type, d.status, d.attempts, d.last_status AS "lastStatus",
      d.last_latency_ms AS "lastLatencyMs",
      -- A failure stored before codes reads as unknown.
      coalesce(d.last_error_code, CASE WHEN d.last_error IS NOT NULL THEN 'unknown' END) AS "lastErrorCode",
      d.last_error_params AS "lastErrorParams", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt"
    FROM unnest(${endpoints.map((e) => e.id)}::uuid[]) AS ep(id)
    CROSS JOIN LATERAL (
      SELECT * FROM webhook_deliveries WHERE endpoint_id = ep.id AND user_id = ${userId} ORDER BY created_at DESC, id LIMIT ${LOG_SIZE}
    ) d
    JOIN webhook_events e ON e.id = d.event_id
    ORDER BY d.created_at DESC`;
  return endpoints.map((e) => ({
    id: e.id,
    url: e.url,
    events: e.events,
    secretHint: e.secretHint,
    enabled: e.enabled,
    disabledAt: e.disabledAt?.toISOString() ?? null,
    failingSince: e.failingSince?.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
    deliveries: deliveries
      .filter((d) => d.endpointId === e.id)
      .map(({ endpointId: _, nextAttemptAt, createdAt, ...d }) => ({
        ...d,
        nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
        createdAt: createdAt.toISOString(),
      })),
  }));
}

/** Queues a webhook.test event to this endpoint alone (whatever events it chose). */
export async function sendTestEvent(userId: string, endpointId: string, db: Db = sql): Promise<{ eventId: string }> {
  if (!isUuid(endpointId)) throw notFound();
  return transaction(db, async (tx) => {
    const [endpoint] = await tx<{ id: string }[]>`SELECT id FROM webhook_endpoints WHERE id = ${endpointId} AND user_id = ${userId}`;
    if (!endpoint) throw notFound();
    const eventId = newEventId();
    const payload = envelope(WEBHOOK_TEST_EVENT, new Date(), { endpointId, message: 'A test event from Postforge' });
    await tx`INSERT INTO webhook_events (id, user_id, type, payload) VALUES (${eventId}, ${userId}, ${WEBHOOK_TEST_EVENT}, ${tx.json(payload as never)})`;
    const rows = await tx<{ id: string }[]>`
      INSERT INTO webhook_deliveries (event_id, endpoint_id, user_id, next_attempt_at)
      VALUES (${eventId}, ${endpointId}, ${userId}, now()) RETURNING id`;
    await enqueueMany(DELIVER_QUEUE, [{ payload: { deliveryId: rows[0]!.id, attempt: 1 } }], tx);
    return { eventId };
  });
}

// ---------------------------------------------------------------------------------------------
// Events (called by the services where things happen, inside their transactions)

type Json = Record<string, unknown>;

/** The signed body: Standard Webhooks' recommended envelope. */
function envelope(type: string, at: Date, data: Json) {
  return { type, timestamp: at.toISOString(), data };
}

/**
 * Writes an event for every enabled endpoint of the owner that chose its type, and queues the first
 * attempts, in the caller's transaction. No subscribed endpoint: nothing is written. A dedupe key
 * already used (the same fact recorded twice) writes nothing either.
 */
export async function emitEvent(userId: string, type: WebhookEventType, data: Json, dedupeKey: string | undefined, tx: TransactionSql) {
  const eventId = newEventId();
  const payload = envelope(type, new Date(), data);
  const deliveries = await tx<{ id: string }[]>`
    WITH eps AS (
      SELECT id FROM webhook_endpoints WHERE user_id = ${userId} AND enabled AND ${type} = ANY(events)
    ), ev AS (
      INSERT INTO webhook_events (id, user_id, type, dedupe_key, payload)
      SELECT ${eventId}, ${userId}, ${type}, ${dedupeKey ?? null}, ${tx.json(payload as never)}
      WHERE EXISTS (SELECT 1 FROM eps)
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id
    )
    INSERT INTO webhook_deliveries (event_id, endpoint_id, user_id, next_attempt_at)
    SELECT ev.id, eps.id, ${userId}, now() FROM ev CROSS JOIN eps
    RETURNING id`;
  if (deliveries.length === 0) return;
  await enqueueMany(
    DELIVER_QUEUE,
    deliveries.map((d) => ({ payload: { deliveryId: d.id, attempt: 1 } })),
    tx,
  );
}

/** Whether any enabled endpoint of the owner wants one of these types (skips the work when none does). */
async function wanted(userId: string, types: WebhookEventType[], tx: TransactionSql): Promise<boolean> {
  const rows = await tx`SELECT 1 FROM webhook_endpoints WHERE user_id = ${userId} AND enabled AND events && ${types}::text[] LIMIT 1`;
  return rows.length > 0;
}

/**
 * Whether the owner has an enabled endpoint for a result's final state or its run's end (or, for a
 * post completed with a failing report, result.flagged).
 */
export async function wantsResultEvents(userId: string, status: 'completed' | 'failed', flagged: boolean, db: Db): Promise<boolean> {
  const [row] = await db<{ wants: boolean }[]>`SELECT ${wantsResultEventsSql(userId, status, flagged, db)} AS wants`;
  return row!.wants;
}

/** wantsResultEvents as a boolean expression, for a booking that asks it in its own statement. */
export function wantsResultEventsSql(userId: string, status: 'completed' | 'failed', flagged: boolean, db: Db): Fragment {
  const types = [`result.${status}`, 'run.completed', ...(flagged ? ['result.flagged'] : [])];
  return db`EXISTS (SELECT 1 FROM webhook_endpoints WHERE user_id = ${userId} AND enabled AND events && ${types}::text[])`;
}

type RunProgressRead = () => Promise<{
  status: string;
  totalPrompts: number;
  completedPrompts: number;
  failedPrompts: number;
  canceledPrompts: number;
}>;

/**
 * A result reached its final state (generation): result.completed or result.failed, and
 * run.completed when it was the run's last item. Runs in the transaction that finished the item.
 */
export async function resultFinished(
  item: {
    userId: string;
    resultId: string;
    runId: string;
    attempt: number;
    status: 'completed' | 'failed';
    /** A failure's code (generation-errors.ts) and English text, which result.failed carries. */
    errorCode?: string | null;
    error?: string | null;
    /** A completed post's report when it failed: result.flagged follows result.completed. */
    flagged?: QualityReport | null;
  },
  runProgress: RunProgressRead,
  tx: TransactionSql,
): Promise<void> {
  const flagged = item.status === 'completed' && item.flagged?.status === 'fail' ? item.flagged : null;
  if (!(await wantsResultEvents(item.userId, item.status, flagged !== null, tx))) return;
  // A failure says why as a code a receiver can branch on, beside an English text for its logs.
  const why = item.status === 'failed' ? { errorCode: item.errorCode ?? 'unknown', error: item.error ?? null } : {};
  await emitEvent(
    item.userId,
    `result.${item.status}`,
    { resultId: item.resultId, runId: item.runId, status: item.status, attempt: item.attempt, ...why },
    `result.${item.status}:${item.resultId}:${item.attempt}`,
    tx,
  );
  if (flagged) await resultFlagged({ ...item, cause: 'completed', report: flagged }, tx);
  await runMayHaveEnded(item.userId, item.runId, runProgress, tx);
}

/**
 * result.flagged: a post became one a gated publish would hold (its report fails and it is not
 * approved). Sent once per completion whose report fails (a retried or regenerated item is a new
 * post), and after an edit only when the edit turned a report that did not fail into one that
 * does: a post that stays flagged through edits is not sent again. Runs in the transaction that
 * stored the report.
 */
export async function resultFlagged(
  item: { userId: string; resultId: string; runId: string; attempt: number; cause: 'completed' | 'edited'; report: QualityReport },
  tx: TransactionSql,
): Promise<void> {
  const { report } = item;
  const ids = (status: string) => report.checks.filter((c) => c.status === status).map((c) => c.id);
  await emitEvent(
    item.userId,
    'result.flagged',
    {
      resultId: item.resultId,
      runId: item.runId,
      attempt: item.attempt,
      cause: item.cause,
      // The summary: which checks failed or warned, each with its figures (the whole report is GET /api/results/{id}).
      quality: {
        status: report.status,
        failed: ids('fail'),
        warned: ids('warn'),
        checks: report.checks.filter((c) => c.status === 'fail' || c.status === 'warn'),
        checkedAt: report.checkedAt,
      },
    },
    item.cause === 'completed'
      ? `result.flagged:${item.resultId}:${item.attempt}`
      : `result.flagged:${item.resultId}:edited:${report.checkedAt}`,
    tx,
  );
}

/**
 * run.completed when nothing of the run is processing any more (after an item's end or a cancel),
 * once per run. Runs in the transaction of that change.
 */
export async function runMayHaveEnded(userId: string, runId: string, runProgress: RunProgressRead, tx: TransactionSql): Promise<void> {
  if (!(await wanted(userId, ['run.completed'], tx))) return;
  // Items of one run finishing at once: each waits for the one before to commit, so the last sees
  // every other item final and only it finds the run done (the dedupe key covers a replay).
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`webhook-run:${runId}`}))`;
  const run = await runProgress();
  // A run whose plans wait for review has not ended: it ends once they are written or dropped.
  if (run.status === 'processing' || run.status === 'planned') return;
  await emitEvent(
    userId,
    'run.completed',
    {
      runId,
      status: run.status,
      total: run.totalPrompts,
      completed: run.completedPrompts,
      failed: run.failedPrompts,
      canceled: run.canceledPrompts,
    },
    `run.completed:${runId}`,
    tx,
  );
}

/**
 * A publication reached its final state (WordPress): publication.published or publication.failed.
 * "Published" is our record's end, which a post sent as a draft or pending review reaches too:
 * publication.published says the post's WordPress status (`postStatus`) so a receiver can tell.
 */
export async function publicationFinished(
  p: {
    userId: string;
    publicationId: string;
    resultId: string | null;
    status: 'published' | 'failed';
    postId?: number | null;
    link?: string | null;
    /** The post's status on the site as read back (publish, private, draft, pending); none for a media upload. */
    postStatus?: string | null;
    /** A failure's stored code (wordpress-errors.ts) and English text, which publication.failed carries. */
    errorCode?: string | null;
    error?: string | null;
  },
  tx: TransactionSql,
): Promise<void> {
  // Like result.failed: a code a receiver can branch on, beside an English text for its logs.
  const why = { errorCode: p.errorCode ?? 'unknown', error: p.error ?? null };
  await emitEvent(
    p.userId,
    `publication.${p.status}`,
    {
      publicationId: p.publicationId,
      resultId: p.resultId,
      status: p.status,
      ...(p.status === 'published' ? { postId: p.postId ?? null, link: p.link ?? null, postStatus: p.postStatus ?? null } : why),
    },
    `publication.${p.status}:${p.publicationId}`,
    tx,
  );
}

/**
 * Credits were just held or spent: credits.low when this took the available balance from at least
 * LOW_CREDIT_THRESHOLD to below it (once per crossing, not on every spend below it).
 */
export async function creditsSpent(userId: string, amount: number, tx: TransactionSql): Promise<void> {
  if (amount <= 0 || !(await wanted(userId, ['credits.low'], tx))) return;
  const after = (await getCreditSummary(userId, tx)).totalCreditsRemaining;
  const before = after + amount;
  if (!(before >= LOW_CREDIT_THRESHOLD && after < LOW_CREDIT_THRESHOLD)) return;
  await emitEvent(userId, 'credits.low', { available: after, threshold: LOW_CREDIT_THRESHOLD }, undefined, tx);
}

// ---------------------------------------------------------------------------------------------
// Delivery (the webhook-deliver job)

type Claimed = {
  id: string;
  userId: string;
  endpointId: string;
  url: string;
  secretSealed: string;
  eventId: string;
  payload: unknown;
  eventCreatedAt: Date;
  enabled: boolean;
};

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

/**
 * One attempt of one delivery: claims it (only the attempt it was queued for, only while pending),
 * signs and sends with no transaction open, then records the answer and books what follows.
 * A crash between send and record lets pg-boss retry the job: the receiver may see the event twice
 * (at least once), under the same webhook-id.
 */
export async function deliverAttempt(deliveryId: string, attempt: number, db: Db = sql): Promise<AttemptOutcome> {
  const [claimed] = await db<Claimed[]>`
    WITH c AS (
      UPDATE webhook_deliveries SET claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS}), updated_at = now()
      WHERE id = ${deliveryId} AND status = 'pending' AND attempts = ${attempt - 1}
        AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING id, user_id, endpoint_id, event_id
    )
    SELECT c.id, c.user_id AS "userId", c.endpoint_id AS "endpointId", p.url, p.secret_sealed AS "secretSealed", p.enabled,
      c.event_id AS "eventId", e.payload, e.created_at AS "eventCreatedAt"
    FROM c JOIN webhook_endpoints p ON p.id = c.endpoint_id JOIN webhook_events e ON e.id = c.event_id`;
  if (!claimed) return 'skipped';
  if (!claimed.enabled) {
    // Turned off since the event was written: nothing is sent.
    await db`UPDATE webhook_deliveries SET status = 'failed', claimed_until = NULL, next_attempt_at = NULL, last_error = 'endpoint turned off',
      last_error_code = ${'endpoint_disabled' satisfies WebhookDeliveryFailure}, last_error_params = NULL, updated_at = now()
      WHERE id = ${claimed.id}`;
    return 'failed';
  }
  const body = JSON.stringify(claimed.payload);
  const started = performance.now();
  let status: number | null = null;
  let failure: DeliveryFailure | null = null;
  try {
    const secret = open(claimed.secretSealed, secretContext(claimed.endpointId));
    const at = new Date();
    const signature = new Webhook(secret).sign(claimed.eventId, at, body);
    const res = await outboundRequest(claimed.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': claimed.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
      timeoutMs: SEND_TIMEOUT_MS,
      maxBytes: 64 * 1024,
      // A receiver answers where it was registered: a redirect is a failure, not a new target.
      maxRedirects: 0,
    });
    status = res.status;
    if (status < 200 || status >= 300) failure = { code: 'http_status', params: { status }, text: `HTTP ${status}` };
  } catch (err) {
    const text = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    failure = err instanceof OutboundError ? { code: err.code, params: null, text } : { code: 'internal', params: null, text };
  }
  const latency = Math.round(performance.now() - started);
  return record(claimed, attempt, { status, latency, failure }, db);
}

/** A failed attempt: its code and parameters for the reader, its English text for operators. */
type DeliveryFailure = { code: WebhookDeliveryFailure; params: ErrorParams | null; text: string };

async function record(
  d: Claimed,
  attempt: number,
  answer: { status: number | null; latency: number; failure: DeliveryFailure | null },
  db: Db,
): Promise<AttemptOutcome> {
  return transaction(db, async (tx) => {
    const failure = answer.failure;
    if (failure === null) {
      await tx`
        UPDATE webhook_deliveries SET status = 'delivered', attempts = ${attempt}, claimed_until = NULL, last_status = ${answer.status},
          last_latency_ms = ${answer.latency}, last_error = NULL, last_error_code = NULL,
          last_error_params = NULL, next_attempt_at = NULL, delivered_at = now(), updated_at = now()
        WHERE id = ${d.id} AND attempts = ${attempt - 1}`;
      await tx`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${d.endpointId} AND failing_since IS NOT NULL`;
      return 'delivered';
    }
    const delay = retryDelaySeconds(attempt + 1);
    const next = new Date(Date.now() + delay * 1000);
    const windowEnds = d.eventCreatedAt.getTime() + env.WEBHOOK_RETRY_WINDOW_HOURS * 3600 * 1000;
    const retry = next.getTime() <= windowEnds;
    const [endpoint] = await tx<{ failingSince: Date; enabled: boolean }[]>`
      UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = ${d.endpointId}
      RETURNING failing_since AS "failingSince", enabled`;
    const disable = Boolean(endpoint?.enabled && Date.now() - endpoint.failingSince.getTime() >= DISABLE_AFTER_MS);
    await tx`
      UPDATE webhook_deliveries SET status = ${retry && !disable ? 'pending' : 'failed'}, attempts = ${attempt}, claimed_until = NULL,
        last_status = ${answer.status}, last_latency_ms = ${answer.latency}, last_error = ${failure.text},
        last_error_code = ${failure.code}, last_error_params = ${failure.params ? tx.json(failure.params) : null},
        next_attempt_at = ${retry && !disable ? next : null}, updated_at = now()
      WHERE id = ${d.id} AND attempts = ${attempt - 1}`;
    if (disable) {
      await disableEndpoint(d.userId, d.endpointId, tx);
      return 'failed';
    }
    if (!retry) return 'failed';
    await enqueueMany(DELIVER_QUEUE, [{ payload: { deliveryId: d.id, attempt: attempt + 1 }, startAfter: next }], tx);
    return 'retrying';
  });
}

/** Turns the endpoint off, ends its waiting deliveries failed, and e-mails the owner (once). */
async function disableEndpoint(userId: string, endpointId: string, tx: TransactionSql): Promise<void> {
  const [row] = await tx<{ url: string; email: string; name: string; language: 'en' | 'zh-HK'; disabledAt: Date }[]>`
    WITH off AS (
      UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), updated_at = now()
      WHERE id = ${endpointId} AND enabled RETURNING url, disabled_at
    )
    SELECT off.url, u.email, u.name, u.language, off.disabled_at AS "disabledAt" FROM off JOIN users u ON u.id = ${userId}`;
  if (!row) return;
  await tx`
    UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
    WHERE endpoint_id = ${endpointId} AND status = 'pending'`;
  getLogger().warn({ endpointId }, 'webhooks: endpoint failing for 3 days, turned off');
  await queueEmail(
    {
      messageKey: `webhook-disabled:${endpointId}:${row.disabledAt.toISOString()}`,
      to: row.email,
      template: 'webhook-disabled',
      language: row.language,
      params: { name: row.name, url: row.url, link: `${env.APP_URL}/settings/webhooks` },
    },
    tx,
  );
}

function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

function notFound() {
  return new WebhookError('not_found', 'Webhook endpoint not found');
}
