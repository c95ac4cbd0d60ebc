import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { catalogueWithPrices } from '~/services/billing/prices.server';
import { methodNotAllowed, noStore } from '~/http/json-api.server';

// Plan and Top-up plan, from the catalogue; price ids from STRIPE_PRICE_* (null when unset).
export async function loader({ request }: LoaderFunctionArgs) {
  const t = await getT(request, 'billing');
  const { plans, topUpPlans } = catalogueWithPrices();
  return noStore(
    {
      plans: plans.map((p) => ({
        id: p.id,
        name: t(`plans.${p.id}.name`),
        description: t(`plans.${p.id}.description`),
        price: p.price,
        priceId: p.priceId,
        features: p.featureKeys.map((k) => t(k, { count: p.monthlyCredits })),
      })),
      topUpPlans: topUpPlans.map((p) => ({
        id: p.id,
        name: t('topUps.name', { count: p.credits }),
        description: t('topUps.packDescription', { count: p.credits }),
        price: p.price,
        priceId: p.priceId,
        limits: { credits: p.credits },
      })),
    },
    { headers: { Vary: 'Cookie, Accept-Language' } },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
