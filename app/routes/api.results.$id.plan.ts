import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { dropPlan, getPlan, savePlan } from '~/services/generation/plans.server';
import { planSchema } from '~/utils/plan-schema';
import { withApi } from '~/http/api-context.server';

// GET /api/results/{id}/plan → a plan-first post's plan. PUT { title, metaDescription, sections,
// faq } replaces a planned post's plan; DELETE drops a planned post (its held credits released).
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(await getPlan(ctx.user.id, params.id ?? '')));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const id = params.id ?? '';
      if (request.method === 'DELETE') {
        await dropPlan(ctx.user.id, id);
        return ctx.ok(await getPlan(ctx.user.id, id));
      }
      return ctx.ok(await savePlan(ctx.user.id, id, await ctx.read(planSchema(ctx.t))));
    },
    { methods: ['PUT', 'DELETE'], allow: 'GET, PUT, DELETE' },
  );
}
