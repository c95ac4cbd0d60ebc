import crypto from 'node:crypto';
import type { CallGate } from '~/utils/call-gate';

// An item as a worker holds it: what the claim brought, and the options of its processing.

/** A worker claimed the item's current attempt this many times: beyond it, it ends failed (crash loop). */
export const MAX_DELIVERIES = 3;

export type ClaimedItem = {
  jobId: string;
  resultId: string;
  userId: string;
  attempt: number;
  /** False when the item is not processing in that attempt, or another worker holds it. */
  leased: boolean;
  deliveries: number;
  /** The lease taken by the claim (seconds); the heartbeat renews it and the hold with it. */
  leaseSeconds?: number;
  /** Its job's priority (higher first: a run's earlier items, so runs interleave). */
  priority?: number;
  /** The item's row as the claim read it, with whether its hold was renewed (still open). */
  row?: ItemRow & { held: boolean };
};

/** The key to call a provider with, for a user (api-keys' providerKey, or a memo of it). */
export type KeyLookup = (userId: string, provider: 'openrouter' | 'replicate') => Promise<string | null>;

export type ProcessOptions = {
  keyOf?: KeyLookup;
  /**
   * Called once the provider has answered (or failed): only the conversion and booking are left.
   * The work waits for the promise it may return (the loop refills the slot first).
   */
  onAnswered?: () => Promise<void> | void;
  /**
   * Resolves when the item may call its provider (the loop's slot: a claimed item may wait next in
   * line); rejects with SlotWithdrawn when it must not (canceled while waiting, or the worker stops).
   */
  slot?: () => Promise<void>;
  /** The loop's gate for the sections of posts written from a plan (the provider concurrency). */
  calls?: CallGate;
  /**
   * Told once the item's end is committed, instead of checking its run's linking at once: the loop
   * checks the items that ended in a batch (one statement for many). Without it, itemEnded.
   */
  ended?: (item: ClaimedItem) => void;
};

/** The item was taken back before it reached its provider: nothing to book. */
export class SlotWithdrawn extends Error {}

/** `planned`: a plan-first item's plan was made; it waits for its owner, its hold still open. */
export type ItemOutcome = 'completed' | 'failed' | 'skipped' | 'planned';

export type ItemRow = {
  id: string;
  type: 'text' | 'image';
  prompt: string;
  model: string;
  settings: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

/** What every process's WORKER_ID starts with: such a wake-up is an item's end, not new jobs. */
export const WORKER_PREFIX = 'worker:';
/**
 * This process's id in the wake-ups it sends when an item ends (a freed per-user slot may let
 * another process claim): its own loop has already woken itself and ignores the echo.
 */
export const WORKER_ID = `${WORKER_PREFIX}${crypto.randomUUID()}`;
