import { getCurrentCreditSummary } from '~/services/ledger.server';
import type { SessionUser } from '~/services/sessions.server';

export type AccountSummary = {
  plan: SessionUser['subscriptionStatus'];
  credits: {
    creditsRemaining: number;
    topUpCreditsRemaining: number;
    totalCreditsRemaining: number;
    nextResetAt: string | null;
  };
};

/** What the header and the page shells show about the signed-in user's plan and credits. */
export async function getAccountSummary(user: SessionUser): Promise<AccountSummary> {
  // Includes the lazy monthly reset, which covers a missed scheduled run.
  const credits = await getCurrentCreditSummary(user.id);
  return {
    plan: user.subscriptionStatus,
    credits: {
      creditsRemaining: credits.creditsRemaining,
      topUpCreditsRemaining: credits.topUpCreditsRemaining,
      totalCreditsRemaining: credits.totalCreditsRemaining,
      nextResetAt: credits.nextResetAt?.toISOString() ?? null,
    },
  };
}
