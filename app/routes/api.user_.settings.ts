import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getLastUsed, saveLastUsed } from '~/services/user-settings.server';
import { withApi } from '~/http/api-context.server';

// PATCH /api/user/settings: the last-used values (the user settings). Invalid fields are
// left out rather than failing (the client only logs a failure); GET reads them back.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'inputs', async (ctx) => ctx.ok({ settings: await getLastUsed(ctx.user.id) }));
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(request, 'inputs', async (ctx) => ctx.ok({ settings: await saveLastUsed(ctx.user.id, await ctx.body()) }), {
    methods: ['PATCH', 'POST'],
    allow: 'GET, PATCH',
  });
}
