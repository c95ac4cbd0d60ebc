import type { Db } from '../../../db/client';

// What an admin did to a money action (retry, close): who, when, on what, and the note they gave.
// Kept apart from the action's own row so every step stays on record, not only the last.

export type AdminActionKind = 'duplicate_refund_retry' | 'duplicate_refund_close' | 'shortfall_retry' | 'shortfall_close';

export async function recordAdminAction(action: AdminActionKind, ref: string, adminId: string, note: string | null, db: Db): Promise<void> {
  await db`INSERT INTO billing_admin_actions (action, ref, admin_id, note) VALUES (${action}, ${ref}, ${adminId}, ${note})`;
}

/** The longest note an admin may leave when closing a money action by hand. */
export const CLOSE_NOTE_MAX = 500;
