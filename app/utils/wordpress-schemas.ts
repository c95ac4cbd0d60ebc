import { z } from 'zod';
import type { Translate } from './auth-schemas';
import { validTimeZone } from './time-zone';
import { zonedToInstant } from './zoned-time';
import { META_DESCRIPTION_MAX, seoFieldsSchema } from './seo-fields';

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

/** The publish payload of the JSON API and the publish page. */
export function publishSchema(t: Translate) {
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
      ...seoFieldsSchema(t('wordpress:validation.metaDescriptionTooLong', { max: META_DESCRIPTION_MAX })),
      categories: idList,
      categoryIds: idList,
      tags: tagList,
      status: z.enum(PUBLISH_STATUSES).optional().default('draft'),
      publishDate: z
        .string()
        .nullish()
        .transform((v) => (v ? v : null))
        .refine((v) => v === null || !Number.isNaN(Date.parse(v)), t('wordpress:validation.date')),
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
    .transform((v) => ({ ...v, categories: [...new Set([...v.categories, ...v.categoryIds])] }))
    .refine((v) => v.status !== 'future' || v.publishDate !== null, { message: t('wordpress:validation.date'), path: ['publishDate'] });
}

export type PublishPayload = z.output<ReturnType<typeof publishSchema>>;

export const BULK_MAX = 500;

/** The chosen site of a publish form (bulk, drip): a positive id, or the one message. */
export const siteIdField = (t: Translate) =>
  z.coerce
    .number({ required_error: t('wordpress:validation.site'), invalid_type_error: t('wordpress:validation.site') })
    .int(t('wordpress:validation.site'))
    .min(1, t('wordpress:validation.site'));

/**
 * Bulk publish: the chosen completed results, to one site, now or spread over a schedule
 * (the first at startDate + startTime in the user's zone, or at startAt, an ISO instant; then one
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
      timeZone: z.string().trim().max(64).optional(),
      every: z.coerce
        .number({ invalid_type_error: t('wordpress:validation.every') })
        .int(t('wordpress:validation.every'))
        .min(1, t('wordpress:validation.every'))
        .max(365, t('wordpress:validation.every'))
        .default(1),
      unit: z.enum(['hours', 'days']).default('days'),
      categories: idList,
      tags: tagList,
      featured: checkbox,
      qualityGate: checkbox,
      // For selected results already on the site: update their posts, publish new ones, or leave them out.
      onExisting: z
        .enum(['update', 'new', 'skip'])
        .or(z.literal(''))
        .optional()
        .transform((v) => (v ? v : undefined)),
    })
    .transform((v, ctx) => {
      const timeZone = validTimeZone(v.timeZone) ?? validTimeZone(defaultTimeZone) ?? 'UTC';
      let start: Date | null = null;
      if (v.mode === 'schedule') {
        if (v.startAt && !Number.isNaN(Date.parse(v.startAt))) start = new Date(v.startAt);
        else if (v.startDate && v.startTime) start = zonedToInstant(v.startDate, v.startTime, timeZone);
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
        featured: v.featured,
        qualityGate: v.qualityGate,
        schedule: start ? { start, every: v.every, unit: v.unit, timeZone } : null,
        onExisting: v.onExisting,
      };
    });
}

export function rescheduleSchema(t: Translate) {
  return z.object({
    publishAt: z
      .string({ required_error: t('wordpress:validation.date') })
      .refine((v) => !Number.isNaN(Date.parse(v)), t('wordpress:validation.date')),
  });
}

export function uploadImageSchema(t: Translate) {
  return z.object({
    siteId: z.coerce.number().int().min(1).nullish(),
    imageBase64: z.string().min(1, t('wordpress:upload.failed')).max(14_000_000),
    filename: z.string().trim().min(1).max(200).default('image.png'),
    mimeType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  });
}
