import { parseWithZod } from '@conform-to/zod';
import { json } from '@remix-run/node';
import { z } from 'zod';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { publishAndWait } from '~/services/wordpress/publish-now.server';
import { chooseTermsPerPost } from '~/services/wordpress/term-choices.server';
import type { Translate } from '~/utils/auth-schemas';
import { publicationErrorText } from '~/utils/wordpress-errors';
import { checkLine } from '~/utils/quality/check-text';
import type { QualityReport } from '~/utils/quality/report';
import { validTimeZone } from '~/utils/time-zone';
import { publishSchema } from '~/utils/wordpress-schemas';
import { zonedToInstant } from '~/utils/zoned-time';
import { explainError } from './errors.server';
import { redirectWithToast } from './toast.server';

// The publish page's post (/app/publish/:resultId): one result to one site, now or at a time.

/**
 * The publish form as posted (read as typed, a repeated field by its first value): publish now, or
 * schedule at a date and time in the form's zone (`tz`, the user's when the form has none); then the
 * publish payload's own rules (the same as the API's).
 */
const publishFormSchema = (t: Translate, resultId: string | undefined, timeZone: string) =>
  z
    .record(z.unknown())
    .transform((form) => {
      const field = (name: string) => (Array.isArray(form[name]) ? (form[name] as unknown[])[0] : form[name]);
      const text = (name: string, fallback = '') => {
        const value = field(name);
        return value === undefined ? fallback : String(value);
      };
      const schedule = field('mode') === 'schedule';
      const at = schedule ? zonedToInstant(text('date'), text('time'), validTimeZone(text('tz')) ?? timeZone) : null;
      const categories = form.categories === undefined ? [] : ([] as unknown[]).concat(form.categories).map(String);
      return {
        resultId,
        siteId: field('siteId'),
        title: field('title'),
        content: field('content'),
        excerpt: field('excerpt') ?? '',
        metaDescription: field('metaDescription'),
        slug: field('slug'),
        focusKeyword: field('focusKeyword'),
        seoTitle: field('seoTitle'),
        categories,
        tags: text('tags'),
        status: schedule ? 'future' : 'publish',
        publishDate: at ? at.toISOString() : null,
        featured: field('featured') ?? '',
        qualityGate: field('qualityGate') ?? '',
        onExisting: field('onExisting') ?? '',
        target: field('target') ?? '',
      };
    })
    .pipe(publishSchema(t));

/**
 * "Let AI choose categories and tags" on the publish page: the model's choice for this result among
 * the chosen site's own, answered for review in the form (nothing is published).
 */
/**
 * What the publish form carried, for the page to show again after the request: without JavaScript
 * the page is a new document whose fields would otherwise start again from the stored result.
 */
export type PublishFormSent = Record<(typeof SENT_FIELDS)[number], string>;
const SENT_FIELDS = [
  'title',
  'content',
  'excerpt',
  'seoTitle',
  'metaDescription',
  'slug',
  'focusKeyword',
  'date',
  'time',
  'qualityGate',
] as const;
function sentValues(formData: FormData): Partial<PublishFormSent> {
  const out: Partial<PublishFormSent> = {};
  for (const name of SENT_FIELDS) {
    const v = formData.get(name);
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

export async function chooseResultTerms({
  userId,
  resultId,
  formData,
}: {
  userId: string;
  resultId: string | undefined;
  formData: FormData;
}) {
  const siteId = Number(formData.get('siteId'));
  try {
    const chosen = await chooseTermsPerPost(userId, siteId, resultId ? [resultId] : []);
    const [first] = chosen.choices;
    return json({
      termChoice: { choice: first ? { categories: first.categories, tags: first.tags } : null, failed: chosen.failed },
      sent: sentValues(formData),
    });
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    return json(
      { termChoice: { choice: null, failed: 'site' as const }, sent: sentValues(formData) },
      { status: error.code === 'not_pro' ? 403 : 404 },
    );
  }
}

/** Why a gated post waits: the checks its report failed, each with its figure (the toast's text). */
export function heldReason(t: Translate, quality: QualityReport | null): string {
  const failed = quality?.checks.filter((c) => c.status === 'fail') ?? [];
  if (failed.length === 0) return t('publish.heldNoReport');
  // A toast rides in a cookie: a long closest-post title must not overflow it.
  return failed
    .map((c) => checkLine(t, c, 'workspace:'))
    .join(' · ')
    .slice(0, 600);
}

/** Publishes (or schedules) the result as the form says; the form comes back with the reason when refused. */
export async function publishResult({
  userId,
  resultId,
  formData,
  t,
  timeZone,
}: {
  userId: string;
  resultId: string | undefined;
  formData: FormData;
  t: Translate;
  /** The user's zone: the dates and times of a form that does not name one are read in it. */
  timeZone: string;
}) {
  const submission = parseWithZod(formData, { schema: publishFormSchema(t, resultId, timeZone), disableAutoCoercion: true });
  if (submission.status !== 'success') return json({ result: submission.reply(), sent: sentValues(formData) }, { status: 400 });
  const input = submission.value;
  const refuse = (message: string, status: number) =>
    json({ result: submission.reply({ formErrors: [message] }), sent: sentValues(formData) }, { status });
  let done;
  try {
    // Publish now waits for the site (bounded); a slower site finishes in the background.
    done = await publishAndWait(userId, input);
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    const { message, status } = await explainError(error, t);
    return refuse(message, status);
  }
  if (!done) return refuse(t('publish.noContent'), 400);
  const { publication, outcome } = done;
  // Held for review: the Needs review list shows it with its report and Approve.
  if (outcome === 'held')
    return redirectWithToast('/app?tab=results&review=needs', {
      type: 'info',
      title: t('publish.held'),
      description: heldReason(t, done.quality ?? null),
    });
  if (outcome === 'failed')
    return refuse(
      publication.lastErrorCode || publication.lastError
        ? publicationErrorText(t, publication.lastErrorCode, publication.lastError)
        : t('publish.failed'),
      502,
    );
  const media = publication.kind === 'media';
  const title =
    outcome === 'scheduled'
      ? t('publish.scheduled')
      : outcome === 'background'
        ? t('publish.backgroundTitle')
        : media
          ? t('publish.mediaUploaded')
          : input.onExisting === 'update'
            ? t('publish.updated')
            : t('publish.published');
  const description = outcome === 'background' ? t('publish.background') : undefined;
  return redirectWithToast('/app?tab=results', { type: 'success', title, ...(description ? { description } : {}) });
}
