import type { SubscriptionStatus } from '~/catalogue';
import type { Db, TransactionSql } from '../../../db/client';
import { BillingError } from './errors.server';

// The user billing acts for: who a Stripe customer or metadata names, the user's row lock that puts
// one user's bookings one after the other, the Pro badge, and the finance flags billing raises.

export type BillingUser = { id: string; email: string; name: string; subscriptionStatus: SubscriptionStatus };

export async function currentStatus(userId: string, db: Db): Promise<SubscriptionStatus> {
  const [row] = await db<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId}`;
  if (!row) throw new BillingError('not_found', 'Unknown user');
  return row.status;
}

export async function lockUser(userId: string, tx: TransactionSql): Promise<SubscriptionStatus | null> {
  const [row] = await tx<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId} FOR UPDATE`;
  return row?.status ?? null;
}

export async function setStatus(userId: string, status: SubscriptionStatus, tx: TransactionSql): Promise<void> {
  await tx`UPDATE users SET subscription_status = ${status}, updated_at = now() WHERE id = ${userId} AND subscription_status <> ${status}`;
}

export async function userOfCustomer(customerId: string | null, db: Db): Promise<string | null> {
  if (!customerId) return null;
  const [row] = await db<{ userId: string }[]>`SELECT user_id AS "userId" FROM billing_customers WHERE stripe_customer_id = ${customerId}`;
  return row?.userId ?? null;
}

export async function existingUser(id: string | null | undefined, db: Db): Promise<string | null> {
  if (!id || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await db<{ id: string }[]>`SELECT id FROM users WHERE id = ${id}`;
  return row?.id ?? null;
}

/** A flag for finance, raised once per ref (a repeat keeps the first). */
export async function flag(ref: string, userId: string | null, kind: string, detail: Record<string, unknown>, tx: TransactionSql) {
  await tx`INSERT INTO billing_finance_flags (ref, user_id, kind, detail) VALUES (${ref}, ${userId}, ${kind}, ${tx.json(detail as never)})
    ON CONFLICT (ref) DO NOTHING`;
}
