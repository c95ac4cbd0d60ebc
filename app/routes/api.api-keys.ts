import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { maskedApiKeys, saveApiKeys } from '~/services/api-keys.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { apiKeysSchema } from '~/utils/settings-request';

// POST /api/api-keys: blank keys are not saved, null removes one; the answer holds masks only.
export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      await saveApiKeys(ctx.user.id, await ctx.read(apiKeysSchema));
      return ctx.ok({ keys: await maskedApiKeys(ctx.user.id) });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
