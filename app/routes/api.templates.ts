import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { MAX_TEMPLATES_PER_USER } from '~/catalogue';
import { createTemplate, listTemplates } from '~/services/templates.server';
import type { Translate } from '~/utils/auth-schemas';
import { apiUser, inputsT, noStore } from '~/http/input-api.server';
import { apiError, methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { parseNewTemplate } from '~/utils/template-request';

// SPEC §7 GET /api/templates[?type=text|image] → { templates }; POST → the new template.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const type = new URL(request.url).searchParams.get('type');
  if (type && type !== 'text' && type !== 'image') {
    return apiError(400, (await inputsT(request))('templates.invalidType'));
  }
  return noStore({ templates: await listTemplates(user.id, (type as 'text' | 'image' | null) || null) });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request, 'GET, POST');
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const t = (await inputsT(request)) as Translate;
  const parsed = parseNewTemplate(t, body);
  if (!parsed.ok) return validationError(parsed.error);
  const created = await createTemplate(user.id, parsed.template);
  if (!created.ok) return apiError(409, t('templates.limit', { max: MAX_TEMPLATES_PER_USER }));
  return noStore({ template: created.template }, 201);
}
