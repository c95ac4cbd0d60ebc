import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteTemplate, getTemplate, updateTemplate } from '~/services/templates.server';
import type { Translate } from '~/utils/auth-schemas';
import { apiUser, inputsT, noStore } from '~/http/input-api.server';
import { apiError, methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { parseTemplatePatch } from '~/utils/template-request';

// SPEC §7 PUT /api/templates/{id} (changed fields), DELETE /api/templates/{id}; GET for one.
// Another user's template answers 404, exactly like one that does not exist.
async function notFound(request: Request) {
  return apiError(404, (await inputsT(request))('templates.notFound'));
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const template = await getTemplate(user.id, params.id ?? '');
  return template ? noStore({ template }) : notFound(request);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const id = params.id ?? '';
  if (request.method === 'DELETE') {
    return (await deleteTemplate(user.id, id)) ? noStore({ ok: true }) : notFound(request);
  }
  if (request.method !== 'PUT' && request.method !== 'PATCH') return methodNotAllowed(request, 'GET, PUT, DELETE');
  const current = await getTemplate(user.id, id);
  if (!current) return notFound(request);
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const parsed = parseTemplatePatch((await inputsT(request)) as Translate, body, current);
  if (!parsed.ok) return validationError(parsed.error);
  const template = await updateTemplate(user.id, id, parsed.patch);
  return template ? noStore({ template }) : notFound(request);
}
