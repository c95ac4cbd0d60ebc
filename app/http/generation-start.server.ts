import { startRunFor } from '~/services/generation/start.server';
import { env } from '~/runtime/env.server';
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
      // The run and the Idempotency-Key's answer commit together (an entered key is saved before).
      return startRunFor(ctx.user.id, input, {}, (start) =>
        idempotent(request, ctx.user.id, input, async (tx) => {
          const run = await start(tx);
          return { status: 200, body: { jobId: run.runId, total: run.total, credits: run.credits } };
        }),
      );
    },
    { methods: ['POST'] },
  );
}
