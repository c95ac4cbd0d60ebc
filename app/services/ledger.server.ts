import type { Fragment } from 'postgres';
import { sql, type Db } from '../../db/client';
import { loadEnv } from '../runtime/env.server';
import { dateTimeFormat } from '../utils/intl-format';

// The credit ledger's API. Each write is one call to a function of db/functions/ledger.sql, so it
// is atomic on its own and joins the caller's transaction when one is passed as `db` (registration,
// Stripe webhooks, generation). The rules (locks, idempotency, hash chain, plan amounts) live there,
// once; the tables in migrations 002 and 004.

export type { Db };

export const PAGE_SIZE = 20;

export type EntryKind =
  | 'monthly_grant'
  | 'monthly_expire'
  | 'topup_purchase'
  | 'topup_forfeit'
  | 'reserve'
  | 'post'
  | 'void'
  | 'adjustment'
  | 'topup_reversal'
  | 'grant_reversal';

/**
 * The Stripe objects a billing booking came from, stored in the row's own columns (and covered by
 * its hash). Payment rows (a purchase, a paid invoice's grant, a refund's reversal) also carry the
 * money: currency and amount in minor units (cents).
 */
export type StripeOrigin = {
  event?: string | null;
  checkoutSession?: string | null;
  invoice?: string | null;
  paymentIntent?: string | null;
  charge?: string | null;
  /** The Stripe refund object (`re_…`) a refund reversal books. */
  refund?: string | null;
  currency?: string | null;
  amountMinor?: number | null;
};

/** The jsonb the ledger functions take (NULL when there is no origin: the row hashes as before). */
function originJson(o: StripeOrigin | undefined, db: Db) {
  if (!o) return null;
  const fields = {
    event: o.event ?? null,
    checkout_session: o.checkoutSession ?? null,
    invoice: o.invoice ?? null,
    payment_intent: o.paymentIntent ?? null,
    charge: o.charge ?? null,
    refund: o.refund ?? null,
    currency: o.currency ?? null,
    amount_minor: o.amountMinor ?? null,
  };
  if (fields.amount_minor !== null && (!Number.isSafeInteger(fields.amount_minor) || fields.amount_minor < 0)) {
    throw new LedgerError('amountMinor must be a non-negative integer', 'invalid');
  }
  // db.json: a plain string would be sent as a JSON string scalar, not an object.
  return Object.values(fields).some((v) => v !== null) ? db.json(fields) : null;
}

export type LedgerEntry = {
  seq: number;
  id: string;
  createdAt: Date;
  userId: string;
  kind: EntryKind;
  fromAccount: number;
  toAccount: number;
  amount: number;
  balanceAfter: number;
  pendingSeq: number | null;
  externalRef: string | null;
  idempotencyKey: string;
  reason: string | null;
  actor: string | null;
  hash: string;
  stripe: StripeOrigin | null;
};

export type CreditSummary = {
  creditsRemaining: number;
  topUpCreditsRemaining: number;
  totalCreditsRemaining: number;
  nextResetAt: Date | null;
};

export type LedgerErrorCode = 'insufficient_credits' | 'already_resolved' | 'no_hold' | 'key_conflict' | 'invalid';

export class LedgerError extends Error {
  constructor(
    message: string,
    readonly code: LedgerErrorCode,
  ) {
    super(message);
    this.name = 'LedgerError';
  }
}

const ERROR_CODES: Record<string, LedgerErrorCode> = {
  LG001: 'insufficient_credits',
  LG002: 'already_resolved',
  LG003: 'no_hold',
  LG004: 'key_conflict',
  LG005: 'invalid',
};

/** Turns the database's ledger errors into LedgerError; a CHECK on a bucket is also "Insufficient credits". */
function translate(err: unknown): never {
  const e = err as { code?: string; message?: string; constraint_name?: string };
  if (e?.code && ERROR_CODES[e.code]) throw new LedgerError(e.message ?? 'Ledger error', ERROR_CODES[e.code]!);
  if (e?.code === '23514' && e.constraint_name === 'ledger_accounts_available_check') {
    throw new LedgerError('Insufficient credits', 'insufficient_credits');
  }
  throw err;
}

type RawEntry = {
  seq: string;
  id: string;
  created_at: Date;
  user_id: string;
  kind: EntryKind;
  from_account: string;
  to_account: string;
  amount: string;
  balance_after: string;
  pending_seq: string | null;
  external_ref: string | null;
  idempotency_key: string;
  reason: string | null;
  actor: string | null;
  prev_hash: Buffer;
  hash: Buffer;
  stripe_event_id?: string | null;
  stripe_checkout_session_id?: string | null;
  stripe_invoice_id?: string | null;
  stripe_payment_intent_id?: string | null;
  stripe_charge_id?: string | null;
  stripe_refund_id?: string | null;
  currency?: string | null;
  amount_minor?: string | null;
};

function toEntry(r: RawEntry): LedgerEntry {
  return {
    seq: Number(r.seq),
    id: r.id,
    createdAt: r.created_at,
    userId: r.user_id,
    kind: r.kind,
    fromAccount: Number(r.from_account),
    toAccount: Number(r.to_account),
    amount: Number(r.amount),
    balanceAfter: Number(r.balance_after),
    pendingSeq: r.pending_seq === null ? null : Number(r.pending_seq),
    externalRef: r.external_ref,
    idempotencyKey: r.idempotency_key,
    reason: r.reason,
    actor: r.actor,
    hash: r.hash.toString('hex'),
    stripe:
      r.stripe_event_id || r.stripe_checkout_session_id || r.stripe_invoice_id || r.stripe_payment_intent_id || r.stripe_charge_id
        ? {
            event: r.stripe_event_id ?? null,
            checkoutSession: r.stripe_checkout_session_id ?? null,
            invoice: r.stripe_invoice_id ?? null,
            paymentIntent: r.stripe_payment_intent_id ?? null,
            charge: r.stripe_charge_id ?? null,
            refund: r.stripe_refund_id ?? null,
            currency: r.currency ?? null,
            amountMinor: r.amount_minor == null ? null : Number(r.amount_minor),
          }
        : null,
  };
}

async function rows(query: Promise<RawEntry[]>): Promise<LedgerEntry[]> {
  try {
    return (await query).map(toEntry).sort((x, y) => x.seq - y.seq);
  } catch (err) {
    translate(err);
  }
}

async function one(query: Promise<RawEntry[]>): Promise<LedgerEntry> {
  const [entry] = await rows(query);
  return entry!;
}

function positiveInt(n: number, what = 'Amount'): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new LedgerError(`${what} must be a positive integer`, 'invalid');
  return n;
}

// ---------------------------------------------------------------------------------------------
// Grants, resets and top-ups

/**
 * Books the current period's Free grant for a new account (call inside the registration
 * transaction). A Pro or canceled account gets nothing here: its grant comes from its invoice.
 */
export async function grantSignupCredits(userId: string, db: Db = sql): Promise<LedgerEntry[]> {
  return rows(db<RawEntry[]>`SELECT * FROM ledger_reset(${userId})`);
}

/**
 * The monthly reset when due, for the anniversary period that contains `now`. A Free account:
 * expire what is left, then grant the Free plan's amount (app/catalogue.ts, synced to SQL by every
 * migrate). A Pro or canceled-Pro account: nothing is booked (its grant comes only from a paid
 * invoice, through expireMonthly/grantMonthly); the anniversary just moves on. Safe to run from the
 * schedule and the lazy path at once.
 */
export async function resetMonthly(userId: string, now?: Date, db: Db = sql): Promise<LedgerEntry[]> {
  return rows(db<RawEntry[]>`SELECT * FROM ledger_reset(${userId}, ${now ?? db`now()`})`);
}

/**
 * The lazy monthly check on a user's request: one indexed read when nothing is due, the reset
 * otherwise (also opens the ledger for accounts made before it existed). Same rules as resetMonthly.
 */
export async function ensureCurrentPeriod(userId: string, now?: Date, db: Db = sql): Promise<void> {
  const [state] = await db<{ due: boolean }[]>`
    SELECT next_reset_at <= ${now ?? db`now()`} AS due FROM ledger_users WHERE user_id = ${userId}`;
  if (state && !state.due) return;
  await resetMonthly(userId, now, db);
}

/**
 * A monthly grant for an explicit period (billing: a Pro invoice). `period` must name the invoice
 * (its id, e.g. `in_123`), never a bare date: `grant:{user}:{YYYY-MM-DD}` is the Free anniversary
 * grant's key. A replay of the same key books nothing; the same key with another amount fails
 * (`key_conflict`).
 */
export async function grantMonthly(
  userId: string,
  period: string,
  amount: number,
  origin?: StripeOrigin,
  db: Db = sql,
): Promise<LedgerEntry> {
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${userId}, 'monthly_grant', ${`grant:${userId}:${period}`},
    ${positiveInt(amount)}, ${period}, NULL, NULL, NULL, ${originJson(origin, db)}::jsonb)`);
}

/** Whether the monthly grant of `period` (as grantMonthly names it) is already booked for the user. */
export async function isPeriodGranted(userId: string, period: string, db: Db = sql): Promise<boolean> {
  const [row] = await db`SELECT 1 FROM ledger_entries WHERE idempotency_key = ${`grant:${userId}:${period}`}`;
  return Boolean(row);
}

/** Expires whatever is left of the monthly bucket for the period (one row, possibly of 0); billing keys it by the invoice like grantMonthly. */
export async function expireMonthly(userId: string, period: string, origin?: StripeOrigin, db: Db = sql): Promise<LedgerEntry> {
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${userId}, 'monthly_expire', ${`expire:${userId}:${period}`},
    NULL, ${period}, NULL, NULL, NULL, ${originJson(origin, db)}::jsonb)`);
}

/** Credits a purchased pack to the top-up bucket, once per checkout session. */
export async function purchaseTopUp(
  userId: string,
  checkoutSessionId: string,
  amount: number,
  origin?: StripeOrigin,
  db: Db = sql,
): Promise<LedgerEntry> {
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${userId}, 'topup_purchase', ${`topup:${checkoutSessionId}`},
    ${positiveInt(amount)}, ${checkoutSessionId}, NULL, NULL, NULL, ${originJson(origin, db)}::jsonb)`);
}

/** Moves the whole top-up bucket to expired as one row (downgrade); `ref` names the event. */
export async function forfeitTopUp(userId: string, ref: string, origin?: StripeOrigin, db: Db = sql): Promise<LedgerEntry> {
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${userId}, 'topup_forfeit', ${`forfeit:${ref}`},
    NULL, ${ref}, NULL, NULL, NULL, ${originJson(origin, db)}::jsonb)`);
}

/** Reverses a refunded purchase: takes back its amount, capped at what the top-up bucket still holds. */
export async function reverseTopUp(userId: string, checkoutSessionId: string, db: Db = sql): Promise<LedgerEntry> {
  const [purchase] = await db<{ amount: string }[]>`
    SELECT amount FROM ledger_entries WHERE idempotency_key = ${`topup:${checkoutSessionId}`} AND user_id = ${userId}`;
  if (!purchase) throw new LedgerError(`No top-up ${checkoutSessionId} for this user`, 'invalid');
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${userId}, 'topup_reversal', ${`topup-reversal:${checkoutSessionId}`},
    ${Number(purchase.amount)}, ${checkoutSessionId}, NULL, NULL)`);
}

/** What a refund takes back of one booked payment (a top-up purchase or a Pro invoice's grant). */
export type RefundReversal = {
  kind: 'topup' | 'grant';
  userId: string;
  /** The booked payment row's ref: the checkout session (top-up) or the invoice period label (grant). */
  ref: string;
  /** The refund's level: Stripe's cumulative amount refunded on the charge, in minor units. */
  refundedMinor: number;
  /** Credits to take back at this level (beyond the earlier levels), before the cap. */
  credits: number;
  /** Cap at what the bucket holds (the unspent part), or take nothing (the period is over). */
  takeNothing?: boolean;
  origin: StripeOrigin;
};

/** The reversal rows already booked for a payment, with the refund level (minor units) each was booked at and its refund object. */
export async function refundReversalsOf(kind: 'topup' | 'grant', userId: string, ref: string, db: Db = sql) {
  const prefix = kind === 'topup' ? `topup-reversal:${ref}` : `grant-reversal:${userId}:${ref}`;
  const list = await db<{ key: string; amount: string; minor: string | null; refund: string | null }[]>`
    SELECT idempotency_key AS key, amount, amount_minor AS minor, stripe_refund_id AS refund FROM ledger_entries
    WHERE user_id = ${userId} AND kind = ${kind === 'topup' ? 'topup_reversal' : 'grant_reversal'}
      AND (idempotency_key = ${prefix} OR idempotency_key LIKE ${prefix.replace(/[\\%_]/g, '\\$&') + '@%'})`;
  return list.map((r) => ({
    // Rows keyed without a level are the full refunds booked before levels existed.
    level: r.key.includes('@') ? Number(r.key.slice(r.key.lastIndexOf('@') + 1)) : Number.POSITIVE_INFINITY,
    amount: Number(r.amount),
    refund: r.refund,
  }));
}

/**
 * Takes back credits for one refund level of a payment, once (the key names the payment and the
 * level), capped at what the bucket still holds: the row says what was actually taken back.
 */
export async function reverseRefund(r: RefundReversal, db: Db = sql): Promise<LedgerEntry> {
  const key = r.kind === 'topup' ? `topup-reversal:${r.ref}@${r.refundedMinor}` : `grant-reversal:${r.userId}:${r.ref}@${r.refundedMinor}`;
  if (!Number.isSafeInteger(r.credits) || r.credits < 0) throw new LedgerError('credits must be a non-negative integer', 'invalid');
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${r.userId}, ${r.kind === 'topup' ? 'topup_reversal' : 'grant_reversal'}, ${key},
    ${r.takeNothing ? 0 : r.credits}, ${r.ref}, NULL, NULL, NULL, ${originJson(r.origin, db)}::jsonb)`);
}

/**
 * Takes back part of a refund's shortfall later (credits the refund could not reverse because they
 * were spent): the same kind of row as the refund's reversal, from the same bucket, capped at what
 * the bucket holds now, with no Stripe money of its own (the refund's row carries it). `key` names
 * the attempt, so a replay books it once.
 */
export async function recoverShortfall(
  r: { bucket: 'topup' | 'monthly'; userId: string; key: string; ref: string; credits: number; reason: string },
  db: Db = sql,
): Promise<LedgerEntry> {
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${r.userId}, ${r.bucket === 'topup' ? 'topup_reversal' : 'grant_reversal'},
    ${`shortfall-recovery:${r.key}`}, ${positiveInt(r.credits)}, ${r.ref}, ${r.reason}, 'system:shortfall-recovery')`);
}

/**
 * The booked payment a Stripe payment intent or charge paid for (a top-up purchase or a Pro
 * invoice's grant), or a legacy top-up purchase named by its checkout session; null when not booked.
 */
export async function findPaymentEntry(
  userId: string,
  ids: { paymentIntent?: string | null; charge?: string | null; checkoutSession?: string | null },
  db: Db = sql,
): Promise<LedgerEntry | null> {
  const [found] = await rows(db<RawEntry[]>`
    SELECT * FROM ledger_entries WHERE user_id = ${userId} AND kind IN ('topup_purchase', 'monthly_grant')
      AND (stripe_payment_intent_id = ${ids.paymentIntent ?? null} OR stripe_charge_id = ${ids.charge ?? null}
        OR (kind = 'topup_purchase' AND idempotency_key = ${ids.checkoutSession ? `topup:${ids.checkoutSession}` : null}))
    ORDER BY seq LIMIT 1`);
  return found ?? null;
}

export type AdjustInput = {
  userId: string;
  amount: number;
  reason: string;
  actor: string;
  bucket?: 'monthly' | 'topup';
  /** Names the correction so a retried command books it once; a fresh one by default. */
  key?: string;
};

/** An operator's correction as a new row (positive credits, negative debits the bucket). */
export async function adjust(input: AdjustInput, db: Db = sql): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) throw new LedgerError('Amount must be a non-zero integer', 'invalid');
  if (!input.reason.trim()) throw new LedgerError('A reason is required', 'invalid');
  const key = `adjust:${input.key ?? crypto.randomUUID()}`;
  return one(db<RawEntry[]>`SELECT * FROM ledger_transfer(${input.userId}, 'adjustment', ${key}, ${input.amount},
    NULL, ${input.reason.trim()}, ${input.actor}, ${input.bucket ?? 'monthly'})`);
}

// ---------------------------------------------------------------------------------------------
// Spending: reserve, then post or void

export type ReserveItem = {
  key: string;
  amount: number;
  /**
   * When the sweeper may void this hold if it is still open: set it past the time the work can
   * still be queued or running, and move it on with extendHolds() while working. Default: now +
   * LEDGER_HOLD_MAX_AGE_SECONDS.
   */
  expiresAt?: Date;
};

function futureDate(d: Date, what: string): string {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new LedgerError(`${what} must be a valid date`, 'invalid');
  if (d.getTime() <= Date.now()) throw new LedgerError(`${what} must be in the future`, 'invalid');
  return d.toISOString();
}

/**
 * Holds credits for every item or for none ("Insufficient credits"): monthly first, then top-up.
 * Item keys name the business object (e.g. a result id) and make retries harmless (a replayed item
 * keeps its first hold and expiry).
 */
export async function reserve(userId: string, items: ReserveItem[], db: Db = sql): Promise<LedgerEntry[]> {
  if (items.length === 0) return [];
  const keys = items.map((i) => i.key);
  if (new Set(keys).size !== keys.length) throw new LedgerError('Duplicate item keys', 'invalid');
  const amounts = items.map((i) => positiveInt(i.amount));
  const expires = items.map((i) => (i.expiresAt === undefined ? null : futureDate(i.expiresAt, 'expiresAt')));
  const defaultSecs = loadEnv().LEDGER_HOLD_MAX_AGE_SECONDS;
  return rows(db<RawEntry[]>`SELECT * FROM ledger_reserve(${userId}, ${keys}::text[], ${amounts}::bigint[],
    ${expires}::timestamptz[], ${defaultSecs})`);
}

/**
 * Moves the expiry of the items' open holds to `until` (never earlier than it was), while their
 * work is still queued or running. Returns the keys whose holds are still open; a key missing from
 * it was posted, voided or swept (the work should stop: its credits are no longer held).
 */
export async function extendHolds(keys: string[], until: Date, db: Db = sql): Promise<string[]> {
  if (keys.length === 0) return [];
  const at = futureDate(until, 'until');
  const open = await db<{ item: string }[]>`SELECT DISTINCT item FROM ledger_extend_holds(${keys}::text[], ${at}) AS item`;
  return open.map((r) => r.item);
}

/**
 * extendHolds inside the caller's statement, for a statement that finds the items itself (a
 * worker's claim renews the holds of what it takes, in the same round trip): a set-returning call
 * of the keys (`keys`: a SQL text[]) whose holds are still open.
 */
export function extendHoldsWithin(keys: Fragment, until: Date, db: Db): Fragment {
  return db`ledger_extend_holds(${keys}, ${futureDate(until, 'until')}::timestamptz)`;
}

/** holdKey in SQL, from the caller's statement's own columns (see extendHoldsWithin). */
export function holdKeyWithin(resultId: Fragment, attempt: Fragment, db: Db): Fragment {
  return db`('result:' || (${resultId}) || ':attempt:' || (${attempt}))`;
}

/**
 * The key of the hold for one attempt of a generation item (`result:{id}:attempt:{n}`: ledger keys
 * name the business object, and a retry is a new attempt with its own hold). The one place this
 * format is written: generation reserves, extends and settles its holds with it.
 */
export function holdKey(resultId: string, attempt: number): string {
  return `result:${resultId}:attempt:${attempt}`;
}

/**
 * The key of the hold of one fix of a completed result (`result:{id}:fix:{fixId}`): a fix is its
 * own business object, charged apart from the generation that made the post.
 */
export function fixHoldKey(resultId: string, fixId: string): string {
  return `result:${resultId}:fix:${fixId}`;
}

export type HoldOutcome = 'post' | 'void';

/**
 * Posts (spends) or voids (releases) the holds of many items in one round trip, each exactly once:
 * a replay of the same outcome returns the earlier rows; the other outcome fails with
 * `already_resolved`, an item without a hold with `no_hold` (the whole call rolls back).
 */
export async function settleHolds(itemKeys: string[], outcome: HoldOutcome, db: Db = sql): Promise<LedgerEntry[]> {
  if (itemKeys.length === 0) return [];
  return rows(db<RawEntry[]>`
    SELECT e.* FROM unnest(${itemKeys}::text[]) AS k(key) CROSS JOIN LATERAL ledger_resolve(k.key, ${outcome}) AS e`);
}

/**
 * One item's settleHolds as a set-returning call inside the caller's own statement, so a booking
 * writes its row and settles the hold in one round trip (join it only where the row changed). The
 * statement's errors become LedgerError through withLedgerErrors.
 */
export function settleHoldCall(itemKey: string, outcome: HoldOutcome, db: Db): Fragment {
  return db`ledger_resolve(${itemKey}, ${outcome})`;
}

/** Awaits a statement that settles holds (settleHoldCall): the ledger's errors as LedgerError. */
export async function withLedgerErrors<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    translate(err);
  }
}

/** The hold of an item becomes a spend, exactly once (a replay returns the same rows). */
export async function post(itemKey: string, db: Db = sql): Promise<LedgerEntry[]> {
  return settleHolds([itemKey], 'post', db);
}

/** The hold of an item is released, exactly once. */
export async function voidHold(itemKey: string, db: Db = sql): Promise<LedgerEntry[]> {
  return settleHolds([itemKey], 'void', db);
}

/**
 * The sweeper: voids the holds whose expiry has passed (their owner neither resolved nor extended
 * them). Each item is checked again under its locks, so an extension that lands first keeps it.
 * Returns how many items were released.
 */
export async function sweepExpiredHolds({ limit = 1000 }: { limit?: number } = {}, db: Db = sql): Promise<number> {
  const expired = await db<{ item: string }[]>`
    SELECT item FROM ledger_open_holds WHERE expires_at <= now() GROUP BY item ORDER BY min(expires_at) LIMIT ${limit}`;
  let voided = 0;
  for (const { item } of expired) {
    try {
      const released = await rows(db<RawEntry[]>`SELECT * FROM ledger_void_expired(${item})`);
      if (released.length > 0) voided++;
    } catch (err) {
      // Posted meanwhile by a late worker: that outcome stands.
      if (!(err instanceof LedgerError && err.code === 'already_resolved')) throw err;
    }
  }
  return voided;
}

/**
 * The scheduled job: every user whose monthly reset is due. (Accounts without a ledger yet are
 * opened by their signup grant or by the lazy check on their next request.)
 */
export async function resetDueUsers({ batch = 500, now }: { batch?: number; now?: Date } = {}, db: Db = sql): Promise<number> {
  let total = 0;
  for (;;) {
    const due = await db<{ userId: string }[]>`
      SELECT user_id AS "userId" FROM ledger_users WHERE next_reset_at <= ${now ?? db`now()`} ORDER BY next_reset_at LIMIT ${batch}`;
    if (due.length === 0) return total;
    for (const { userId } of due) total += (await resetMonthly(userId, now, db)).length;
    if (due.length < batch) return total;
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The user's balances (a read of the projection: flat whatever the history's length). */
export async function getCreditSummary(userId: string, db: Db = sql): Promise<CreditSummary> {
  const [row] = await db<{ monthly: string; topup: string; nextResetAt: Date | null }[]>`
    SELECT
      coalesce(sum(credits_posted - debits_posted - debits_pending) FILTER (WHERE code = 'monthly'), 0) AS monthly,
      coalesce(sum(credits_posted - debits_posted - debits_pending) FILTER (WHERE code = 'topup'), 0) AS topup,
      (SELECT next_reset_at FROM ledger_users WHERE user_id = ${userId}) AS "nextResetAt"
    FROM ledger_accounts WHERE user_id = ${userId}`;
  const monthly = Number(row?.monthly ?? 0);
  const topup = Number(row?.topup ?? 0);
  const next = row?.nextResetAt ?? null;
  return {
    creditsRemaining: monthly,
    topUpCreditsRemaining: topup,
    totalCreditsRemaining: monthly + topup,
    nextResetAt: next && Number.isFinite(next.getTime()) ? next : null,
  };
}

/**
 * The summary after the lazy monthly check, for the pages and the user API: one read when nothing is
 * due (the summary carries the next reset), the reset and a second read otherwise.
 */
export async function getCurrentCreditSummary(userId: string, db: Db = sql): Promise<CreditSummary> {
  const summary = await getCreditSummary(userId, db);
  if (summary.nextResetAt && summary.nextResetAt.getTime() > Date.now()) return summary;
  await ensureCurrentPeriod(userId, undefined, db);
  return getCreditSummary(userId, db);
}

export type HistoryRow = {
  seq: number;
  createdAt: Date;
  kind: EntryKind;
  /** The change to the user's available credits (a post changes nothing: its hold already did). */
  delta: number;
  amount: number;
  balanceAfter: number;
  bucket: 'monthly' | 'topup';
  reason: string | null;
};

export type HistoryPage = { rows: HistoryRow[]; page: number; pageCount: number; total: number };

const historyColumns = (db: Db) => db`
  e.seq, e.created_at AS "createdAt", e.kind, e.amount, e.balance_after AS "balanceAfter", e.reason,
  CASE WHEN f.user_id IS NOT NULL THEN f.code ELSE t.code END AS bucket,
  CASE
    WHEN e.kind = 'post' THEN 0
    WHEN e.kind = 'void' THEN e.amount
    WHEN t.user_id IS NOT NULL THEN e.amount
    ELSE -e.amount
  END AS delta`;

type RawHistory = {
  seq: string;
  createdAt: Date;
  kind: EntryKind;
  amount: string;
  balanceAfter: string;
  reason: string | null;
  bucket: 'monthly' | 'topup';
  delta: string;
};

const toHistory = (r: RawHistory): HistoryRow => ({
  seq: Number(r.seq),
  createdAt: r.createdAt,
  kind: r.kind,
  amount: Number(r.amount),
  balanceAfter: Number(r.balanceAfter),
  reason: r.reason,
  bucket: r.bucket,
  delta: Number(r.delta),
});

/** The user's rows, newest first, PAGE_SIZE a page (page numbers from 1). */
export async function listHistory(userId: string, page = 1, db: Db = sql): Promise<HistoryPage> {
  const [{ total }] = (await db<{ total: number }[]>`
    SELECT count(*)::int AS total FROM ledger_entries WHERE user_id = ${userId}`) as unknown as [{ total: number }];
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), pageCount);
  const list = await db<RawHistory[]>`
    SELECT ${historyColumns(db)}
    FROM ledger_entries e
    JOIN ledger_accounts f ON f.id = e.from_account
    JOIN ledger_accounts t ON t.id = e.to_account
    WHERE e.user_id = ${userId}
    ORDER BY e.seq DESC
    LIMIT ${PAGE_SIZE} OFFSET ${(current - 1) * PAGE_SIZE}`;
  return { rows: list.map(toHistory), page: current, pageCount, total };
}

/** Every row of the user, oldest first, a cursor at a time (the user's own CSV download). */
export async function* iterateHistory(userId: string, db: Db = sql): AsyncGenerator<HistoryRow> {
  const cursor = db<RawHistory[]>`
    SELECT ${historyColumns(db)}
    FROM ledger_entries e
    JOIN ledger_accounts f ON f.id = e.from_account
    JOIN ledger_accounts t ON t.id = e.to_account
    WHERE e.user_id = ${userId}
    ORDER BY e.seq`.cursor(500);
  for await (const batch of cursor) for (const r of batch) yield toHistory(r);
}

export type BalancePoint = { day: string; balance: number };

/** Rows of a user in chain order (tests and tools). */
export async function entriesOf(userId: string, db: Db = sql): Promise<LedgerEntry[]> {
  return rows(db<RawEntry[]>`SELECT * FROM ledger_entries WHERE user_id = ${userId} ORDER BY seq`);
}

/**
 * What /subscription shows of the ledger (JSON-ready): history page `page` (from 1; out of range
 * clamps) and the balance series of the last 90 days in the reader's time zone.
 */
export async function loadCreditHistory(userId: string, page = 1, opts: { timeZone?: string } = {}, db: Db = sql) {
  const [history, balance] = await Promise.all([
    listHistory(userId, page, db),
    balanceSeriesSince(userId, { timeZone: opts.timeZone, maxDays: 90 }, db),
  ]);
  return {
    history: {
      page: history.page,
      pageCount: history.pageCount,
      total: history.total,
      rows: history.rows.map((r) => ({
        seq: r.seq,
        createdAt: r.createdAt.toISOString(),
        kind: r.kind,
        delta: r.delta,
        amount: r.amount,
        balanceAfter: r.balanceAfter,
        bucket: r.bucket,
      })),
    },
    balance,
  };
}

/** The calendar day ('YYYY-MM-DD') of an instant in a time zone. */
function dayIn(instant: Date, timeZone: string): string {
  return dateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);
}

/**
 * The balance at the end of each day in the reader's time zone, from the day of the account's first
 * ledger row (or `maxDays` back, whichever is later) to today; empty for an account without rows.
 * A new account's chart so starts on its sign-up day instead of reading as months at zero.
 */
export async function balanceSeriesSince(
  userId: string,
  opts: { timeZone?: string; maxDays?: number; now?: Date } = {},
  db: Db = sql,
): Promise<BalancePoint[]> {
  const now = opts.now ?? new Date();
  const timeZone = opts.timeZone ?? 'UTC';
  const maxDays = opts.maxDays ?? 90;
  const today = dayIn(now, timeZone);
  const dayMs = 86_400_000;
  const earliest = new Date(Date.parse(`${today}T00:00:00Z`) - (maxDays - 1) * dayMs).toISOString().slice(0, 10);
  const [first] = await db<{ day: string | null }[]>`
    SELECT to_char(min(created_at) AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS day FROM ledger_entries WHERE user_id = ${userId}`;
  if (!first?.day) return [];
  const start = first.day > earliest ? first.day : earliest;
  const list = await db<{ day: string; balance: string }[]>`
    (SELECT 'opening' AS day, balance_after AS balance FROM ledger_entries
      WHERE user_id = ${userId} AND (created_at AT TIME ZONE ${timeZone})::date < ${start}::date ORDER BY seq DESC LIMIT 1)
    UNION ALL
    (SELECT DISTINCT ON (d) d AS day, balance_after AS balance FROM (
        SELECT to_char(created_at AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS d, seq, balance_after FROM ledger_entries
        WHERE user_id = ${userId} AND (created_at AT TIME ZONE ${timeZone})::date >= ${start}::date) x
      ORDER BY d, seq DESC)`;
  const byDay = new Map(list.map((r) => [r.day, Number(r.balance)]));
  let balance = byDay.get('opening') ?? 0;
  const points: BalancePoint[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${today}T00:00:00Z`); t += dayMs) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (byDay.has(day)) balance = byDay.get(day)!;
    points.push({ day, balance });
  }
  return points;
}
