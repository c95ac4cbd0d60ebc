import Stripe from 'stripe';
import { plans, topUpPacks, type PlanId, type TopUpId } from '~/catalogue';
import { loadEnv } from '~/runtime/env.server';
import { singleton } from '~/runtime/singleton.server';

// The Stripe client of the process (official package). STRIPE_API_BASE points it at another host
// (the test server); without STRIPE_SECRET_KEY billing answers "not configured (development mode)".

export type { Stripe };

export class BillingNotConfigured extends Error {
  constructor() {
    super('Payment provider not configured (development mode)');
    this.name = 'BillingNotConfigured';
  }
}

export function billingConfigured(): boolean {
  return Boolean(loadEnv().STRIPE_SECRET_KEY);
}

export function getStripe(): Stripe {
  const env = loadEnv();
  const key = env.STRIPE_SECRET_KEY;
  if (!key) throw new BillingNotConfigured();
  return singleton(`stripe:${key}:${env.STRIPE_API_BASE ?? ''}`, () => {
    const base = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : null;
    return new Stripe(key, {
      maxNetworkRetries: 2,
      timeout: 15_000,
      ...(base
        ? {
            host: base.hostname,
            port: base.port || (base.protocol === 'https:' ? 443 : 80),
            protocol: base.protocol === 'http:' ? 'http' : 'https',
          }
        : {}),
    });
  });
}

export type PriceTarget = { kind: 'plan'; id: PlanId; priceId: string } | { kind: 'topup'; id: TopUpId; priceId: string; credits: number };

/** The Stripe price id of a catalogue item (null when its STRIPE_PRICE_* is unset). */
export function priceIdOf(envName: string | null): string | null {
  if (!envName) return null;
  const value = (loadEnv() as unknown as Record<string, string | undefined>)[envName];
  return value ? value : null;
}

/** What a price id buys, from the catalogue; null for a price we do not sell. */
export function findPrice(priceId: string): PriceTarget | null {
  if (!priceId) return null;
  for (const plan of Object.values(plans)) {
    if (plan.priceEnv && priceIdOf(plan.priceEnv) === priceId) return { kind: 'plan', id: plan.id, priceId };
  }
  for (const pack of topUpPacks) {
    if (priceIdOf(pack.priceEnv) === priceId) return { kind: 'topup', id: pack.id, priceId, credits: pack.credits };
  }
  return null;
}

/** Stripe's hosted page in the user's language. */
export function stripeLocale(language: string | null | undefined): 'en' | 'zh-HK' | 'auto' {
  if (language === 'zh-HK') return 'zh-HK';
  if (language === 'en') return 'en';
  return 'auto';
}
