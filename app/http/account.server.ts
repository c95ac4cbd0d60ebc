import { getCurrentCreditSummary } from '~/services/ledger.server';
import { requireUser, type SessionUser } from '~/services/sessions.server';

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

/** Signed-in pages are never cached by browsers or proxies. */
export const privatePageHeaders = { 'Cache-Control': 'private, no-store' };

/**
 * What every protected page shell loads: the signed-in user (or a redirect to /) and the
 * header's plan and credit figures.
 */
export async function requirePageShell(request: Request) {
  const user = await requireUser(request);
  const account = await getAccountSummary(user);
  return { userId: user.id, user: { name: user.name, email: user.email, subscriptionStatus: user.subscriptionStatus }, account };
}
