import { getT } from '~/i18n.server';
import { saveApiKeys } from '~/services/api-keys.server';
import { startRun } from '~/services/generation.server';
import { env } from '~/utils/env.server';
import { imageGenerationSchema, textGenerationSchema } from '~/utils/generation-schema';
import { methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { idempotent } from '~/http/idempotency.server';

/**
 * POST /api/generate/{text|image}: parse the payload, save an entered image key, start the run;
 * once per Idempotency-Key (the key's answer and the run commit together).
 */
export async function startGeneration(request: Request, type: 'text' | 'image'): Promise<Response> {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const t = await getT(request, 'generation');
  const schema = (type === 'text' ? textGenerationSchema : imageGenerationSchema)(t, { maxTopics: env.MAX_TOPICS_PER_RUN });
  const parsed = schema.safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  return withGenerationErrors(request, user, async () => {
    // An image-provider key entered in the form is saved before the run starts (SPEC §7).
    // (A replay saves the same key again: the same body carries the same key.)
    if (parsed.data.replicateApiKey) await saveApiKeys(user.userId, { replicateApiKey: parsed.data.replicateApiKey });
    return idempotent(request, user.userId, parsed.data, user.headers, async (tx) => {
      const run = await startRun(user.userId, parsed.data, tx);
      return { status: 200, body: { jobId: run.runId, total: run.total, credits: run.credits } };
    });
  });
}
