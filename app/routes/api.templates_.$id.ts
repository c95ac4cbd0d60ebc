import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteTemplate, getTemplate, updateTemplate } from '~/services/templates.server';
import { withApi, type ApiContext } from '~/http/api-context.server';
import { validationError } from '~/http/json-api.server';
import { parseTemplatePatch } from '~/utils/template-request';

// PUT /api/templates/{id} (changed fields), DELETE /api/templates/{id}; GET for one.
// Another user's template answers 404, exactly like one that does not exist.
const notFound = (ctx: ApiContext) => ctx.error(404, ctx.t('templates.notFound'));

export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'inputs', async (ctx) => {
    const template = await getTemplate(ctx.user.id, params.id ?? '');
    return template ? ctx.ok({ template }) : notFound(ctx);
  });
}

export function action({ request, params }: ActionFunctionArgs) {
  const id = params.id ?? '';
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      if (request.method === 'DELETE') return (await deleteTemplate(ctx.user.id, id)) ? ctx.ok({ ok: true }) : notFound(ctx);
      const current = await getTemplate(ctx.user.id, id);
      if (!current) return notFound(ctx);
      const parsed = parseTemplatePatch(ctx.t, await ctx.body(), current);
      if (!parsed.ok) return validationError(parsed.error);
      const template = await updateTemplate(ctx.user.id, id, parsed.patch);
      return template ? ctx.ok({ template }) : notFound(ctx);
    },
    { methods: ['DELETE', 'PUT', 'PATCH'], allow: 'GET, PUT, DELETE' },
  );
}
