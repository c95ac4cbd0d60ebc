import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { apiSession } from '~/http/api-session.server';
import { generateTitles } from '~/services/titles.server';
import { tooManyJson } from '~/http/rate-limit-response.server';
import { inputsT, noStore } from '~/http/input-api.server';
import { apiError, methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import type { Translate } from '~/utils/auth-schemas';
import { titleRequestSchema } from '~/utils/title-request';

// SPEC §7 POST /api/generate-blog-title: single → { title }, multiple → { titles } by position.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const t = (await inputsT(request)) as Translate;
  const parsed = titleRequestSchema(t).safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  const { keywords, multiple, options } = parsed.data;
  const result = await generateTitles(session.user, keywords, options);
  if (!result.ok) {
    if (result.reason === 'limited') return tooManyJson(request, result.state);
    const status = result.reason === 'notConfigured' ? 503 : 502;
    return apiError(status, t(result.reason === 'notConfigured' ? 'titles.notConfigured' : 'titles.failedBody'));
  }
  return multiple ? noStore({ titles: result.titles }) : noStore({ title: result.titles[0]! });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
