import { z } from 'zod';
import type { Translate } from './auth-schemas';
import { validTimeZone } from './time-zone';
import { parseInstant, zonedToInstant } from './zoned-time';
import { META_DESCRIPTION_MAX, SEO_TITLE_MAX, seoFieldsSchema } from './seo-fields';
import { POST_STATUSES } from './publication-state';

// The WordPress forms' rules, the same on the server and in the browser. Messages come
// from the `wordpress` namespace in the user's language.

/** An absolute http(s) URL (a WordPress site, a webhook endpoint): one message for every way it is wrong. */
export const httpUrl = (message: string) =>
  z
    .string({ required_error: message })
    .trim()
    .min(1, message)
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
      } catch {
        return false;
      }
    }, message);

const checkbox = z
  .union([z.boolean(), z.literal('on'), z.literal('true'), z.literal('false'), z.literal('')])
  .optional()
  .transform((v) => v === true || v === 'on' || v === 'true');

/** A switch that may be left out (undefined: the service's default or the stored value). */
const optionalSwitch = z
  .union([z.boolean(), z.literal('on'), z.literal('true'), z.literal('false'), z.literal('')])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === true || v === 'on' || v === 'true'));

export function siteSchema(t: Translate) {
  return z.object({
    siteUrl: httpUrl(t('wordpress:validation.siteUrl')),
    username: z
      .string({ required_error: t('wordpress:validation.username') })
      .trim()
      .min(1, t('wordpress:validation.username'))
      .max(200),
    appPassword: z
      .string({ required_error: t('wordpress:validation.appPassword') })
      .trim()
      .min(1, t('wordpress:validation.appPassword'))
      .max(200),
    isDefault: checkbox,
    // Plain HTML (a Classic block) instead of Gutenberg blocks, for older themes. Absent:
    // unchanged through the JSON API; the site form, whose unchecked box sends nothing, reads it as off.
    classicHtml: optionalSwitch,
    // Posts published to this site carry their internal links. Absent: on for a new
    // site and unchanged on an edit through the JSON API; the site form, whose unchecked box sends
    // nothing, reads it as off (its box starts checked for a new site).
    internalLinks: optionalSwitch,
  });
}

/** Editing a site: a blank application password keeps the stored one. */
export function siteUpdateSchema(t: Translate) {
  return siteSchema(t).extend({ appPassword: z.string().trim().max(200).optional() });
}

export function testConnectionSchema(t: Translate) {
  const all = t('wordpress:validation.fillAll');
  return z.object({
    siteUrl: z.string({ required_error: all }).trim().min(1, all),
    username: z.string({ required_error: all }).trim().min(1, all),
    appPassword: z.string({ required_error: all }).trim().min(1, all),
  });
}

const idList = z
  .union([z.array(z.coerce.number().int().positive()), z.coerce.number().int().positive(), z.string()])
  .optional()
  .transform((v) => {
    if (v === undefined || v === '') return [] as number[];
    if (Array.isArray(v)) return v;
    if (typeof v === 'number') return [v];
    return v
      .split(',')
      .map((s) => Number(s.trim()))
      .filter((n) => Number.isInteger(n) && n > 0);
  });

const tagList = z
  .union([z.array(z.string()), z.string()])
  .optional()
  .transform((v) => {
    // A form's one field may arrive wrapped in an array (Conform): every element is split on commas.
    const list = (Array.isArray(v) ? v : [v ?? '']).flatMap((s) => s.split(','));
    return [...new Set(list.map((s) => s.trim()).filter(Boolean))].slice(0, 20).map((s) => s.slice(0, 100));
  });

export const PUBLISH_STATUSES = ['draft', 'publish', 'future', 'pending'] as const;

/** An IANA time zone a request names for its dates and times written without an offset; a wrong one is refused. */
const explicitTimeZone = (t: Translate, description: string) =>
  z
    .string()
    .trim()
    .max(64)
    .optional()
    .refine((v) => !v || validTimeZone(v) !== null, t('wordpress:validation.timeZone'))
    .describe(description);

/**
 * The publish payload of the JSON API and the publish page. `publishDate` written without an offset
 * is a time in `timeZone`, else in `defaultTimeZone` (the user's); it comes out as an ISO instant (Z).
 */
export function publishSchema(t: Translate, defaultTimeZone = 'UTC') {
  return z
    .object({
      resultId: z
        .union([z.string(), z.number()])
        .nullish()
        .transform((v) => (v === undefined || v === null || v === '' ? null : String(v))),
      siteId: z.coerce
        .number({ invalid_type_error: t('wordpress:validation.site') })
        .int()
        .min(1, t('wordpress:validation.site')),
      title: z
        .string({ required_error: t('wordpress:validation.title') })
        .trim()
        .min(1, t('wordpress:validation.title'))
        .max(500),
      content: z
        .string({ required_error: t('wordpress:validation.content') })
        .trim()
        .min(1, t('wordpress:validation.content'))
        .max(2_000_000),
      excerpt: z.string().max(5000).optional().default(''),
      ...seoFieldsSchema(
        t('wordpress:validation.metaDescriptionTooLong', { max: META_DESCRIPTION_MAX }),
        t('wordpress:validation.seoTitleTooLong', { max: SEO_TITLE_MAX }),
      ),
      categories: idList,
      categoryIds: idList,
      tags: tagList,
      status: z.enum(PUBLISH_STATUSES).optional().default('draft'),
      publishDate: z
        .string()
        .nullish()
        .transform((v) => (v ? v : null))
        .refine((v) => v === null || parseInstant(v, 'UTC') !== null, t('wordpress:validation.date'))
        .describe(
          "ISO 8601. With an offset or Z it is that instant; without one (2031-01-15T10:00) it is that time in `timeZone`, else in the user's time zone.",
        ),
      timeZone: explicitTimeZone(
        t,
        "The IANA time zone of a publishDate written without an offset (default: the user's, as GET /api/user says).",
      ),
      featured: checkbox,
      // Publish only if the post's quality report passes, or its owner approved it (else it waits).
      qualityGate: checkbox,
      // An image result: a post with its image(s), or its images to the media library only.
      target: z
        .enum(['post', 'media'])
        .or(z.literal(''))
        .optional()
        .transform((v) => (v === 'media' ? 'media' : 'post')),
      // When the result was published to the site before: update that post, or make a new one.
      onExisting: z
        .enum(['update', 'new'])
        .or(z.literal(''))
        .optional()
        .transform((v) => (v ? v : undefined)),
    })
    .transform(({ timeZone, ...v }) => {
      const zone = validTimeZone(timeZone) ?? validTimeZone(defaultTimeZone) ?? 'UTC';
      const at = v.publishDate === null ? null : parseInstant(v.publishDate, zone);
      return { ...v, publishDate: at ? at.toISOString() : null, categories: [...new Set([...v.categories, ...v.categoryIds])] };
    })
    .refine((v) => v.status !== 'future' || v.publishDate !== null, { message: t('wordpress:validation.date'), path: ['publishDate'] });
}

export type PublishPayload = z.output<ReturnType<typeof publishSchema>>;

export const BULK_MAX = 500;

/**
 * Categories and tags of their own for some posts of a bulk or drip publish (chosen by the model,
 * reviewed by the user), as `perPost[i].resultId`, `perPost[i].categories`, `perPost[i].tags`:
 * they replace the shared ones for those posts. Result id → its terms.
 */
export const perPostTerms = z
  .array(z.object({ resultId: z.string().trim().max(100), categories: idList, tags: tagList }))
  .max(BULK_MAX)
  .optional()
  .transform((v) => Object.fromEntries((v ?? []).map((p) => [p.resultId, { categories: p.categories, tags: p.tags }])));

/** The posts' status on the site for a bulk or drip run: published (the default), drafts, or pending review. */
export const postStatusField = z
  .enum(POST_STATUSES)
  .or(z.literal(''))
  .optional()
  .transform((v) => (v ? v : 'publish'));

/** The chosen site of a publish form (bulk, drip): a positive id, or the one message. */
export const siteIdField = (t: Translate) =>
  z.coerce
    .number({ required_error: t('wordpress:validation.site'), invalid_type_error: t('wordpress:validation.site') })
    .int(t('wordpress:validation.site'))
    .min(1, t('wordpress:validation.site'));

/**
 * Bulk publish: the chosen completed results, to one site, now or spread over a schedule
 * (the first at startDate + startTime in `timeZone`, else the user's, or at startAt, ISO; then one
 * every `every` hours or days). The output carries `schedule` (null: now) ready for the service.
 */
export function bulkPublishSchema(t: Translate, defaultTimeZone = 'UTC') {
  return z
    .object({
      siteId: siteIdField(t),
      resultIds: z
        .union([z.array(z.string()), z.string()], { required_error: t('wordpress:validation.pickResults') })
        .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
        .pipe(
          z
            .array(z.string().max(100))
            .min(1, t('wordpress:validation.pickResults'))
            .max(BULK_MAX, t('wordpress:validation.tooMany', { max: BULK_MAX })),
        ),
      mode: z.enum(['now', 'schedule']).default('now'),
      startDate: z.string().trim().optional(),
      startTime: z.string().trim().optional(),
      startAt: z.string().trim().optional(),
      timeZone: explicitTimeZone(
        t,
        "The IANA time zone of startDate and startTime, and of a startAt without an offset (default: the user's).",
      ),
      every: z.coerce
        .number({ invalid_type_error: t('wordpress:validation.every') })
        .int(t('wordpress:validation.every'))
        .min(1, t('wordpress:validation.every'))
        .max(365, t('wordpress:validation.every'))
        .default(1),
      unit: z.enum(['hours', 'days']).default('days'),
      categories: idList,
      tags: tagList,
      perPost: perPostTerms,
      featured: checkbox,
      qualityGate: checkbox,
      // For selected results already on the site: update their posts, publish new ones, or leave them out.
      onExisting: z
        .enum(['update', 'new', 'skip'])
        .or(z.literal(''))
        .optional()
        .transform((v) => (v ? v : undefined)),
      postStatus: postStatusField,
    })
    .transform((v, ctx) => {
      const timeZone = validTimeZone(v.timeZone) ?? validTimeZone(defaultTimeZone) ?? 'UTC';
      let start: Date | null = null;
      if (v.mode === 'schedule') {
        if (v.startAt) start = parseInstant(v.startAt, timeZone);
        if (!start && v.startDate && v.startTime) start = zonedToInstant(v.startDate, v.startTime, timeZone);
        if (!start) {
          ctx.addIssue({ code: 'custom', message: t('wordpress:validation.date'), path: ['startDate'] });
          return z.NEVER;
        }
      }
      return {
        siteId: v.siteId,
        resultIds: [...new Set(v.resultIds)],
        categories: v.categories,
        tags: v.tags,
        perPost: v.perPost,
        featured: v.featured,
        qualityGate: v.qualityGate,
        schedule: start ? { start, every: v.every, unit: v.unit, timeZone } : null,
        onExisting: v.onExisting,
        postStatus: v.postStatus,
      };
    });
}

/** Body of POST /api/wordpress/term-choices: the site, and the results to choose for (in order). */
export function termChoicesSchema(t: Translate) {
  return z.object({
    siteId: siteIdField(t),
    resultIds: z
      .array(z.string().max(100), { required_error: t('wordpress:validation.pickResults') })
      .min(1, t('wordpress:validation.pickResults'))
      .max(BULK_MAX, t('wordpress:validation.tooMany', { max: BULK_MAX })),
  });
}

/** Moving a waiting publication: publishAt read as the publish payload's publishDate is, out as an ISO instant (Z). */
export function rescheduleSchema(t: Translate, defaultTimeZone = 'UTC') {
  return z
    .object({
      publishAt: z
        .string({ required_error: t('wordpress:validation.date') })
        .refine((v) => parseInstant(v, 'UTC') !== null, t('wordpress:validation.date'))
        .describe(
          "ISO 8601. With an offset or Z it is that instant; without one it is that time in `timeZone`, else in the user's time zone.",
        ),
      timeZone: explicitTimeZone(t, "The IANA time zone of a publishAt written without an offset (default: the user's)."),
    })
    .transform(({ publishAt, timeZone }) => ({
      publishAt: parseInstant(publishAt, validTimeZone(timeZone) ?? validTimeZone(defaultTimeZone) ?? 'UTC')!.toISOString(),
    }));
}

export function uploadImageSchema(t: Translate) {
  return z.object({
    siteId: z.coerce.number().int().min(1).nullish(),
    imageBase64: z.string().min(1, t('wordpress:upload.failed')).max(14_000_000),
    filename: z.string().trim().min(1).max(200).default('image.png'),
    mimeType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  });
}
