import { parseWithZod } from '@conform-to/zod';
import { json } from '@remix-run/node';
import { z } from 'zod';
import { refreshSitePosts } from '~/services/internal-links.server';
import { moveScheduled } from '~/services/wordpress/drip.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { cancelPublication, retryPublicationNow } from '~/services/wordpress/schedules.server';
import {
  createSite,
  deleteSite,
  getSite,
  openTestedPassword,
  refreshSiteTimeZone,
  sealTestedPassword,
  setDefaultSite,
  siteCredentials,
  testConnection,
  updateSite,
} from '~/services/wordpress/sites.server';
import { AppError } from '~/utils/app-error';
import type { Translate } from '~/utils/auth-schemas';
import { moveSchema } from '~/utils/drip-schemas';
import { validTimeZone } from '~/utils/time-zone';
import { siteSchema, siteUpdateSchema, testConnectionSchema } from '~/utils/wordpress-schemas';
import { errorMessage, explainError } from './errors.server';
import { redirectWithToast } from './toast.server';
import { connectionMessage } from './wordpress-api.server';

// The WordPress page's forms (/wordpress): one small function per button the page posts, each
// answering with the page's data (a form back with its errors) or a redirect with a toast.

const formText = z.unknown().transform((v) => (typeof v === 'string' ? v : ''));

/**
 * What every form of the page posts beside its own fields (read without coercion, as typed): which
 * button, the site or publication it is about, the password field and a sealed tested password.
 */
export const siteActionHeadSchema = z.object({
  intent: z.enum([
    'create',
    'update',
    'test',
    'delete',
    'default',
    'refresh-posts',
    'cancel-scheduled',
    'move-scheduled',
    'retry-scheduled',
  ]),
  siteId: z.unknown().transform((v) => Number(typeof v === 'string' ? v : 0)),
  appPassword: formText,
  testedPassword: formText,
  publicationId: formText,
});

type SiteActionHead = z.infer<typeof siteActionHeadSchema>;
/** `timeZone`: the user's, for a move form that does not name its zone. */
type IntentArgs = { userId: string; formData: FormData; t: Translate; head: SiteActionHead; timeZone: string };

const back = '/wordpress';

async function test({ userId, formData, t, head: { siteId, appPassword, testedPassword } }: IntentArgs) {
  // A password typed and tested before (the page came back without JavaScript) is tested again.
  const typed = appPassword.trim() || openTestedPassword(userId, testedPassword);
  // Editing a site: a blank password field tests with the stored one.
  if (typed) formData.set('appPassword', typed);
  else if (siteId > 0) {
    const stored = await siteCredentials(userId, siteId).catch(() => null);
    if (stored) formData.set('appPassword', stored.appPassword);
  }
  const submission = parseWithZod(formData, { schema: testConnectionSchema(t) });
  if (submission.status !== 'success') {
    return json(
      { intent: 'test' as const, result: submission.reply({ hideFields: ['appPassword'] }), test: null, testedPassword: null },
      { status: 400 },
    );
  }
  const check = await testConnection(submission.value);
  return json({
    intent: 'test' as const,
    result: submission.reply({ hideFields: ['appPassword'] }),
    test: connectionMessage(t, check),
    // The password never comes back in the field; sealed, it lets Save use it without JavaScript.
    testedPassword: typed ? sealTestedPassword(userId, typed) : null,
  });
}

/** Add a site or save an edited one: the same form, checked by the intent's schema. */
async function save(intent: 'create' | 'update', { userId, formData, t, head: { siteId, appPassword, testedPassword } }: IntentArgs) {
  // Save right after Test connection without JavaScript: the field is empty, the tested password sealed.
  if (!appPassword.trim()) {
    const tested = openTestedPassword(userId, testedPassword);
    if (tested) formData.set('appPassword', tested);
  }
  const schema = intent === 'create' ? siteSchema(t) : siteUpdateSchema(t);
  const submission = parseWithZod(formData, { schema });
  if (submission.status !== 'success') {
    return json({ intent: intent, result: submission.reply({ hideFields: ['appPassword'] }), test: null }, { status: 400 });
  }
  try {
    // The form's unchecked boxes send nothing: Classic HTML off, internal links off.
    const input = {
      ...submission.value,
      classicHtml: submission.value.classicHtml ?? false,
      internalLinks: submission.value.internalLinks ?? false,
    };
    const saved =
      intent === 'create'
        ? await createSite(userId, input as z.infer<ReturnType<typeof siteSchema>>)
        : await updateSite(userId, siteId, input);
    // The site's time zone, for showing scheduled times as the site sees them (best effort).
    await refreshSiteTimeZone(userId, saved.id).catch(() => null);
  } catch (error) {
    if (error instanceof WordPressServiceError && error.code === 'blocked_url') {
      // Nothing saved; the form comes back with what was typed and the reason on the URL field.
      const password = submission.payload.appPassword;
      const typed = typeof password === 'string' ? password.trim() : '';
      return json(
        {
          intent,
          result: submission.reply({ fieldErrors: { siteUrl: [t('sites.blockedUrl')] }, hideFields: ['appPassword'] }),
          test: null,
          testedPassword: typed ? sealTestedPassword(userId, typed) : null,
        },
        { status: 422 },
      );
    }
    if (error instanceof WordPressServiceError)
      return redirectWithToast(back, { type: 'error', title: t('sites.updateFailed'), description: t('sites.notFound') });
    throw error;
  }
  return redirectWithToast(back, { type: 'success', title: intent === 'create' ? t('sites.added') : t('sites.updated') });
}

async function remove({ userId, t, head: { siteId } }: IntentArgs) {
  try {
    await deleteSite(userId, siteId);
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    return redirectWithToast(back, { type: 'error', title: t('sites.deleteFailed'), description: t('sites.notFound') });
  }
  return redirectWithToast(back, { type: 'success', title: t('sites.deleted') });
}

async function makeDefault({ userId, t, head: { siteId } }: IntentArgs) {
  try {
    await setDefaultSite(userId, siteId);
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    return redirectWithToast(back, { type: 'error', title: t('sites.defaultFailed'), description: t('sites.notFound') });
  }
  return redirectWithToast(back, { type: 'success', title: t('sites.defaultUpdated') });
}

/**
 * The site's published posts read again as link targets: bounded by LINK_SOURCE_MAX_POSTS; presses
 * at once share one read. The site's refusal in the user's words.
 */
async function refreshPosts({ userId, t, head: { siteId } }: IntentArgs) {
  try {
    const site = await getSite(userId, siteId);
    const count = await refreshSitePosts(userId, siteId);
    return redirectWithToast(back, {
      type: 'success',
      title: t('sites.postsRefreshed'),
      description: t('sites.postsRefreshedBody', { count, site: site.siteName }),
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return redirectWithToast(back, { type: 'error', title: t('sites.refreshFailed'), description: errorMessage(t, error) });
  }
}

/** A change to a waiting publication; a refusal comes back as a toast. */
async function scheduledChange(t: Translate, change: () => Promise<Response>) {
  try {
    return await change();
  } catch (error) {
    if (!(error instanceof WordPressServiceError)) throw error;
    return redirectWithToast(back, { type: 'error', title: t('publish.failed'), description: (await explainError(error, t)).message });
  }
}

function cancelScheduled({ userId, t, head: { publicationId } }: IntentArgs) {
  return scheduledChange(t, async () => {
    await cancelPublication(userId, publicationId);
    return redirectWithToast(back, { type: 'success', title: t('scheduled.canceled') });
  });
}

function retryScheduled({ userId, t, head: { publicationId } }: IntentArgs) {
  return scheduledChange(t, async () => {
    await retryPublicationNow(userId, publicationId);
    return redirectWithToast(back, { type: 'success', title: t('scheduled.retrying') });
  });
}

/** The calendar's move: the same checks (a drip post stays inside its site's schedule). */
function moveScheduledPost({ userId, formData, t, head: { publicationId }, timeZone }: IntentArgs) {
  return scheduledChange(t, async () => {
    const move = parseWithZod(formData, { schema: moveSchema(t), disableAutoCoercion: true });
    if (move.status !== 'success')
      return redirectWithToast(back, { type: 'error', title: t('publish.failed'), description: t('validation.date') });
    await moveScheduled(userId, publicationId, move.value.date, move.value.time, validTimeZone(move.value.tz) ?? timeZone);
    return redirectWithToast(back, { type: 'success', title: t('scheduled.moved') });
  });
}

/** Each button of the page and what it does. */
export const siteIntents = {
  test,
  create: (args: IntentArgs) => save('create', args),
  update: (args: IntentArgs) => save('update', args),
  delete: remove,
  default: makeDefault,
  'refresh-posts': refreshPosts,
  'cancel-scheduled': cancelScheduled,
  'move-scheduled': moveScheduledPost,
  'retry-scheduled': retryScheduled,
} satisfies Record<SiteActionHead['intent'], (args: IntentArgs) => Promise<Response>>;
