import { z } from 'zod';
import type { Translate } from './auth-schemas';

// The WordPress forms' rules (SPEC §5), the same on the server and in the browser. Messages come
// from the `wordpress` namespace in the user's language.

const httpUrl = (message: string) =>
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
    const list = Array.isArray(v) ? v : (v ?? '').split(',');
    return [...new Set(list.map((s) => s.trim()).filter(Boolean))].slice(0, 20).map((s) => s.slice(0, 100));
  });

export const PUBLISH_STATUSES = ['draft', 'publish', 'future', 'pending'] as const;

/** The publish payload of SPEC §3 / §5. */
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
    })
    .transform((v) => ({ ...v, categories: [...new Set([...v.categories, ...v.categoryIds])] }))
    .refine((v) => v.status !== 'future' || v.publishDate !== null, { message: t('wordpress:validation.date'), path: ['publishDate'] });
}

export function bulkPublishSchema(t: Translate) {
  return z.object({
    siteId: z.coerce
      .number({ invalid_type_error: t('wordpress:validation.site') })
      .int()
      .min(1, t('wordpress:validation.site')),
    resultIds: z
      .union([z.array(z.string()), z.string()])
      .transform((v) => (Array.isArray(v) ? v : [v]).filter(Boolean))
      .pipe(z.array(z.string()).min(1, t('wordpress:validation.pickResults')).max(500)),
    mode: z.enum(['now', 'schedule']).default('now'),
    startAt: z.string().optional(),
    every: z.coerce.number().int().min(1).max(365).default(1),
    unit: z.enum(['hours', 'days']).default('days'),
    categories: idList,
    tags: tagList,
    featured: checkbox,
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
