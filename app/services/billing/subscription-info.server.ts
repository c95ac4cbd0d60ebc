import type { SubscriptionStatus } from '~/catalogue';
import { getCurrentCreditSummary } from '~/services/ledger.server';
import { sql, type Db } from '../../../db/client';

export type SubscriptionInfo = {
  subscriptionStatus: SubscriptionStatus;
  creditsRemaining: number;
  topUpCreditsRemaining: number;
  totalCreditsRemaining: number;
  textCreditsRemaining: number;
  imageCreditsRemaining: number;
  nextBillingDate: string | null;
  cancelAtPeriodEnd: boolean;
  hasBillingAccount: boolean;
};

/** What the subscription page and the API show: the real status, the balances and the next billing (or reset) date. */
export async function getSubscriptionInfo(userId: string, db: Db = sql): Promise<SubscriptionInfo> {
  const credits = await getCurrentCreditSummary(userId, db);
  const [row] = await db<
    { status: SubscriptionStatus; periodEnd: Date | null; cancelAtPeriodEnd: boolean | null; customer: string | null }[]
  >`
    SELECT u.subscription_status AS status,
      s.current_period_end AS "periodEnd", s.cancel_at_period_end AS "cancelAtPeriodEnd",
      (SELECT stripe_customer_id FROM billing_customers c WHERE c.user_id = u.id) AS customer
    FROM users u
    LEFT JOIN LATERAL (SELECT * FROM billing_subscriptions b WHERE b.user_id = u.id AND b.ended_at IS NULL AND b.duplicate_of IS NULL
      ORDER BY b.created_at DESC LIMIT 1) s ON true
    WHERE u.id = ${userId}`;
  const status = row?.status ?? 'free';
  const pro = status === 'pro' || status === 'canceled';
  const next = pro && row?.periodEnd ? row.periodEnd : credits.nextResetAt;
  return {
    subscriptionStatus: status,
    creditsRemaining: credits.creditsRemaining,
    topUpCreditsRemaining: credits.topUpCreditsRemaining,
    totalCreditsRemaining: credits.totalCreditsRemaining,
    textCreditsRemaining: credits.totalCreditsRemaining,
    imageCreditsRemaining: credits.totalCreditsRemaining,
    nextBillingDate: next ? next.toISOString() : null,
    cancelAtPeriodEnd: Boolean(pro && row?.cancelAtPeriodEnd),
    hasBillingAccount: Boolean(row?.customer),
  };
}
