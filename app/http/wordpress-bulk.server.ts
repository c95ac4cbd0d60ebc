import { parseWithZod } from '@conform-to/zod';
import { json } from '@remix-run/node';
import { queueBulkPublications } from '~/services/wordpress/bulk.server';
import { newSeed, queueDrip } from '~/services/wordpress/drip.server';
import { chooseTermsPerPost } from '~/services/wordpress/term-choices.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import type { Translate } from '~/utils/auth-schemas';
import { dripSchema } from '~/utils/drip-schemas';
import { bulkPublishSchema } from '~/utils/wordpress-schemas';
import { instantToZoned } from '~/utils/zoned-time';
import { explainError } from './errors.server';
import { redirectWithToast } from './toast.server';

// The bulk publish page's two posts (/app/publish-bulk): published now or spread over a schedule,
// or dripped under the site's drip schedule (planned, previewed, then confirmed).

type BulkArgs = { userId: string; formData: FormData; t: Translate; timeZone: string };

/**
 * "Let AI choose categories and tags per post": the model's choices among the site's own, answered
 * with the form as posted and the choices to review (nothing is published yet).
 */
export async function chooseBulkTerms({ userId, formData, t, timeZone }: BulkArgs) {
  const submission = parseWithZod(formData, { schema: bulkPublishSchema(t, timeZone) });
  const ids = formData.getAll('resultIds').map(String);
  const siteId = Number(formData.get('siteId'));
  try {
    const chosen = await chooseTermsPerPost(userId, siteId, ids);
    return json({
      result: submission.reply({ resetForm: false }),
      termChoices: { categories: chosen.categories, choices: chosen.choices, failed: chosen.failed },
    });
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    if (error.code === 'not_pro') return redirectWithToast('/app?tab=wordpress', { type: 'error', title: t('publish.proOnly') });
    const { message, status } = await explainError(error, t);
    return json({ result: submission.reply({ formErrors: [message] }), termChoices: null }, { status });
  }
}

/** Now, or spread: the first at a date and time in the user's time zone, then one every N hours or days. */
export async function publishBulk({ userId, formData, t, timeZone }: BulkArgs) {
  const submission = parseWithZod(formData, { schema: bulkPublishSchema(t, timeZone) });
  if (submission.status !== 'success') return json({ result: submission.reply() }, { status: 400 });
  const input = submission.value;
  let count: number;
  try {
    count = (await queueBulkPublications(userId, input)).length;
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    // This page is Pro only (its loader sends others to the WordPress tab): the refusal goes there.
    if (error.code === 'not_pro') return redirectWithToast('/app?tab=wordpress', { type: 'error', title: t('publish.proOnly') });
    const { message, status } = await explainError(error, t);
    return json({ result: submission.reply({ formErrors: [message] }) }, { status });
  }
  return redirectWithToast('/app?tab=wordpress', {
    type: 'success',
    title: input.schedule ? t('bulk.scheduled', { count }) : t('bulk.queued', { count }),
  });
}

/**
 * The drip mode: a post without `intent=confirm` plans (a dry run of the very same transaction) and
 * renders the plan; the preview's confirmation posts the same fields with its seed, instant and
 * fingerprint, and queues exactly that plan (or shows the new one when it came out otherwise).
 */
export async function publishDrip({ userId, formData, t, timeZone }: BulkArgs) {
  const submission = parseWithZod(formData, { schema: dripSchema(t, timeZone) });
  if (submission.status !== 'success') return json({ result: submission.reply(), preview: null }, { status: 400 });
  const v = submission.value;
  const confirming = submission.payload.intent === 'confirm' && v.fingerprint && v.seed !== undefined && v.plannedAt;
  const request = { ...v, seed: v.seed ?? newSeed(), plannedAt: confirming ? v.plannedAt! : new Date() };
  const fields = [...formData.entries()].flatMap(([name, value]) =>
    typeof value === 'string' && !['intent', 'seed', 'plannedAt', 'fingerprint'].includes(name) ? [[name, value] as [string, string]] : [],
  );
  const preview = async (changed: boolean) => {
    const plannedAt = new Date();
    const planned = await queueDrip(userId, { ...request, plannedAt }, { dryRun: true });
    // What the page's DripPreview shows and posts back to confirm.
    const data = {
      posts: planned.publications.map((p) => ({ title: p.title, publishAt: p.publishAt })),
      fingerprint: planned.fingerprint,
      seed: request.seed,
      plannedAt: plannedAt.toISOString(),
      timeZone: v.timeZone,
      fields,
      changed,
    };
    return json({ result: submission.reply(), preview: data });
  };
  try {
    if (!confirming) return await preview(false);
    const { publications } = await queueDrip(userId, request, { expect: v.fingerprint });
    const month = publications[0] ? instantToZoned(new Date(publications[0].publishAt), v.timeZone).date.slice(0, 7) : '';
    return redirectWithToast(`/app/calendar?site=${v.siteId}${month ? `&month=${month}` : ''}`, {
      type: 'success',
      title: t('bulk.scheduled', { count: publications.length }),
    });
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    if (error.code === 'not_pro') return redirectWithToast('/app?tab=wordpress', { type: 'error', title: t('publish.proOnly') });
    if (error.code === 'plan_changed')
      return preview(true).catch(() => json({ result: submission.reply(), preview: null }, { status: 409 }));
    const { message, status } = await explainError(error, t);
    return json({ result: submission.reply({ formErrors: [message] }), preview: null }, { status });
  }
}
