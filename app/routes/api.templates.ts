import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { MAX_TEMPLATES_PER_USER } from '~/catalogue';
import { createTemplate, listTemplates } from '~/services/templates.server';
import { withApi } from '~/http/api-context.server';
import { validationError } from '~/http/json-api.server';
import { parseNewTemplate } from '~/utils/template-request';

// GET /api/templates[?type=text|image] → { templates }; POST → the new template.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'inputs', async (ctx) => {
    const type = new URL(request.url).searchParams.get('type');
    if (type && type !== 'text' && type !== 'image') return ctx.error(400, ctx.t('templates.invalidType'));
    return ctx.ok({ templates: await listTemplates(ctx.user.id, (type as 'text' | 'image' | null) || null) });
  });
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      const parsed = parseNewTemplate(ctx.t, await ctx.body());
      if (!parsed.ok) return validationError(parsed.error);
      const created = await createTemplate(ctx.user.id, parsed.template);
      if (!created.ok) return ctx.error(409, ctx.t('templates.limit', { max: MAX_TEMPLATES_PER_USER }));
      return ctx.ok({ template: created.template }, 201);
    },
    { methods: ['POST'], allow: 'GET, POST' },
  );
}
