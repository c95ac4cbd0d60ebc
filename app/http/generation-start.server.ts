import { saveApiKeys } from '~/services/api-keys.server';
import { startRun } from '~/services/generation.server';
import { env } from '~/utils/env.server';
import { imageGenerationSchema, textGenerationSchema } from '~/utils/generation-schema';
import { withApi } from '~/http/api-context.server';
import { idempotent } from '~/http/idempotency.server';

/**
 * POST /api/generate/{text|image}: parse the payload, save an entered image key, start the run;
 * once per Idempotency-Key (the key's answer and the run commit together).
 */
export function startGeneration(request: Request, type: 'text' | 'image'): Promise<Response> {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const schema = (type === 'text' ? textGenerationSchema : imageGenerationSchema)(ctx.t, { maxTopics: env.MAX_TOPICS_PER_RUN });
      const input = await ctx.read(schema);
      // An image-provider key entered in the form is saved before the run starts.
      if (input.replicateApiKey) await saveApiKeys(ctx.user.id, { replicateApiKey: input.replicateApiKey });
      return idempotent(request, ctx.user.id, input, async (tx) => {
        const run = await startRun(ctx.user.id, input, tx);
        return { status: 200, body: { jobId: run.runId, total: run.total, credits: run.credits } };
      });
    },
    { methods: ['POST'] },
  );
}
