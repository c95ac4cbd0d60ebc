import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { languages } from '~/i18n';
import { createCheckout } from '~/services/billing/checkout.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

const schema = z.object({
  priceId: z.string().trim().min(1, 'priceId is required').max(255),
  language: z.enum(languages).optional().catch(undefined),
});

// POST { priceId, language } → { url } of Stripe Checkout (the browser goes there).
export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'billing',
    async (ctx) => {
      const { priceId, language } = await ctx.read(schema);
      const { url, sessionId } = await createCheckout(ctx.user, priceId, language ?? ctx.user.language);
      return ctx.ok({ url, sessionId });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
