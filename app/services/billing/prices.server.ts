import { plans, topUpPacks, type TopUpId } from '~/catalogue';
import { priceIdOf } from '~/services/stripe.server';

// The catalogue as the API and the page show it: plans and packs with their Stripe prices.

export type PlanView = { id: string; price: number; priceId: string | null; monthlyCredits: number; featureKeys: readonly string[] };
export type TopUpView = { id: TopUpId; price: number; priceId: string | null; credits: number };

/** Plans and packs with their Stripe price ids (null when the STRIPE_PRICE_* is unset) and USD prices. */
export function catalogueWithPrices(): { plans: PlanView[]; topUpPlans: TopUpView[] } {
  return {
    plans: Object.values(plans).map((p) => ({
      id: p.id,
      price: p.priceCents / 100,
      priceId: priceIdOf(p.priceEnv),
      monthlyCredits: p.monthlyCredits,
      featureKeys: p.featureKeys,
    })),
    topUpPlans: topUpPacks.map((p) => ({ id: p.id, price: p.priceCents / 100, priceId: priceIdOf(p.priceEnv), credits: p.credits })),
  };
}
