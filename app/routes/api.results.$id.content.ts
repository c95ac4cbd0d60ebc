import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { updateResultContent } from '~/services/results.server';
import { resultContentSchema } from '~/utils/generation-schema';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';

// SPEC §7: PUT /api/results/{id}/content { content, metaDescription?, slug?, focusKeyword? } → the result
// (its content sanitized again; SEO fields given are stored, absent ones kept).
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'PUT') return methodNotAllowed(request, 'PUT');
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const parsed = resultContentSchema(await getT(request, 'generation')).safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  return withGenerationErrors(request, user, async () =>
    ok(await updateResultContent(user.userId, params.id ?? '', parsed.data.content, parsed.data), user),
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'PUT');
}
