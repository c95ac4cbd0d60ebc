import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { z } from 'zod';
import { getT } from '~/i18n.server';
import { GenerationError } from '~/services/generation/rules.server';
import { clearResults, deleteResult, updateResultContent } from '~/services/results.server';
import { retryResult } from '~/services/generation/retry.server';
import { approveResults } from '~/services/quality/review.server';
import { startFix } from '~/services/fixes/start.server';
import { fixKinds } from '~/catalogue';
import { ADDABLE_SECTIONS } from '~/utils/quality/fixes';
import { requireUser } from '~/services/sessions.server';
import { resultContentSchema, type Translate } from '~/utils/generation-schema';
import { explainError } from '~/http/errors.server';
import { readFormData } from '~/http/json-api.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { redirectWithToast } from '~/http/toast.server';

// The Results tab's mutations as plain form posts (the actions each state allows): retry, remove, save an
// edit, approve, a one-click fix, clear all. Each answers with a redirect back to the tab and a toast, so they work
// without JavaScript; the services own the rules (owner only, refunds, sanitizing).

const RESULTS = '/app?tab=results';

const intentSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('retry'), id: z.string().min(1).max(100) }),
  z.object({ intent: z.literal('remove'), id: z.string().min(1).max(100) }),
  z.object({
    intent: z.literal('save'),
    id: z.string().min(1).max(100),
    content: z.string(),
    title: z.string().optional(),
    seoTitle: z.string().optional(),
    metaDescription: z.string().optional(),
    slug: z.string().optional(),
    focusKeyword: z.string().optional(),
  }),
  z.object({ intent: z.literal('clear') }),
  z.object({ intent: z.literal('approve'), id: z.string().min(1).max(100) }),
  z.object({ intent: z.literal('approveAll') }),
  // A one-click fix, sent from its confirm step with the price shown and the post as seen.
  z.object({
    intent: z.literal('fix'),
    id: z.string().min(1).max(100),
    kind: z.enum(fixKinds),
    section: z.enum(ADDABLE_SECTIONS).optional(),
    basis: z.string().max(40).optional(),
    cost: z.string().regex(/^\d{1,6}$/),
  }),
]);

export async function loader() {
  return redirect(RESULTS);
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const [tw, tg] = await Promise.all([getT(request, 'workspace'), getT(request, 'generation')]);
  const submission = parseWithZod(formData, { schema: intentSchema, disableAutoCoercion: true });
  const returnTo = submission.payload.returnTo;
  const target = safeRedirect(typeof returnTo === 'string' ? returnTo : undefined, RESULTS);
  const back = target?.startsWith('/app?') ? target : RESULTS;
  if (submission.status !== 'success') return redirectWithToast(back, { type: 'error', title: tw('form.invalid') });
  const input = submission.value;
  const failure = {
    retry: 'toasts.retryFailed',
    remove: 'toasts.deleteFailed',
    save: 'toasts.saveFailed',
    clear: 'toasts.clearFailed',
    approve: 'quality.toasts.approveFailed',
    approveAll: 'quality.toasts.approveFailed',
    fix: 'fixes.toasts.failed',
  }[input.intent];

  try {
    switch (input.intent) {
      case 'retry':
        await retryResult(user.id, input.id);
        return redirectWithToast(back, {
          type: 'success',
          title: tw('toasts.retryInitiated'),
          description: tw('toasts.retryInitiatedBody'),
        });
      case 'remove':
        await deleteResult(user.id, input.id);
        return redirectWithToast(back, { type: 'success', title: tw('toasts.resultRemoved'), description: tw('toasts.resultRemovedBody') });
      case 'save': {
        const { intent: _intent, id: _id, ...fields } = input;
        const content = resultContentSchema(tg as Translate).safeParse(fields);
        if (!content.success)
          return redirectWithToast(back, { type: 'error', title: tw(failure), description: content.error.issues[0]?.message });
        const { content: html, ...seo } = content.data;
        await updateResultContent(user.id, input.id, html, seo);
        return redirectWithToast(back, { type: 'success', title: tw('toasts.contentSaved'), description: tw('toasts.contentSavedBody') });
      }
      case 'approve':
      case 'approveAll': {
        const { approved, released } = await approveResults(user.id, input.intent === 'approve' ? [input.id] : 'all');
        return redirectWithToast(back, {
          type: 'success',
          title: tw('quality.toasts.approved', { count: approved.length }),
          description: tw('quality.toasts.approvedBody', { released }),
        });
      }
      case 'fix': {
        const { credits } = await startFix(user.id, input.id, { ...input, cost: Number(input.cost) });
        const what = tw(`fixes.what.${input.kind}`, { section: input.section ? tw(`quality.sections.${input.section}`) : '' });
        return redirectWithToast(back, {
          type: 'success',
          title: tw('fixes.toasts.started'),
          description: tw('fixes.toasts.startedBody', { what, cost: tw('fixes.credits', { count: credits }) }),
        });
      }
      case 'clear':
        await clearResults(user.id);
        return redirectWithToast(back, {
          type: 'success',
          title: tw('toasts.resultsCleared'),
          description: tw('toasts.resultsClearedBody'),
        });
    }
  } catch (error) {
    if (!(error instanceof GenerationError)) throw error;
    return redirectWithToast(back, { type: 'error', title: tw(failure), description: (await explainError(error, tg)).message });
  }
}
