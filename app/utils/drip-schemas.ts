import { z } from 'zod';
import type { Translate } from './auth-schemas';
import { DRIP_MAX_PER_DAY, DRIP_SPREADS, minutesOf } from './drip-plan';
import { validTimeZone } from './time-zone';
import { BULK_MAX, perPostTerms, postStatusField, siteIdField } from './wordpress-schemas';

// The drip form of the bulk publish page, the same on the server and in the browser:
// the results, the site, its rules (N a day, a daily window, weekdays, even or random) in a time
// zone, the first day, and, once previewed, the seed, the preview's instant and its fingerprint.

const checkbox = z
  .union([z.boolean(), z.literal('on'), z.literal('true'), z.literal('false'), z.literal('')])
  .optional()
  .transform((v) => v === true || v === 'on' || v === 'true');

const list = z
  .union([z.array(z.string()), z.string()])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean));

export function dripSchema(t: Translate, defaultTimeZone = 'UTC') {
  const time = (message: string) =>
    z
      .string({ required_error: message })
      .trim()
      .refine((v) => minutesOf(v) !== null, message);
  return z
    .object({
      siteId: siteIdField(t),
      resultIds: list.pipe(
        z
          .array(z.string().max(100))
          .min(1, t('wordpress:validation.pickResults'))
          .max(BULK_MAX, t('wordpress:validation.tooMany', { max: BULK_MAX })),
      ),
      dripStartDate: z
        .string({ required_error: t('wordpress:validation.date') })
        .trim()
        .regex(/^\d{4}-\d{2}-\d{2}$/, t('wordpress:validation.date')),
      perDay: z.coerce
        .number({ invalid_type_error: t('wordpress:drip.rules.perDay', { max: DRIP_MAX_PER_DAY }) })
        .int(t('wordpress:drip.rules.perDay', { max: DRIP_MAX_PER_DAY }))
        .min(1, t('wordpress:drip.rules.perDay', { max: DRIP_MAX_PER_DAY }))
        .max(DRIP_MAX_PER_DAY, t('wordpress:drip.rules.perDay', { max: DRIP_MAX_PER_DAY })),
      windowStart: time(t('wordpress:drip.rules.window')),
      windowEnd: time(t('wordpress:drip.rules.window')),
      weekdays: list.pipe(
        z
          .array(z.coerce.number().int().min(0).max(6))
          .min(1, t('wordpress:drip.rules.weekdays'))
          .transform((v) => [...new Set(v)].sort()),
      ),
      spread: z.enum(DRIP_SPREADS).default('even'),
      dripTimeZone: z.string().trim().max(64).optional(),
      categories: list.transform((v) => v.map(Number).filter((n) => Number.isInteger(n) && n > 0)),
      tags: list.transform((v) => [...new Set(v)].slice(0, 20).map((s) => s.slice(0, 100))),
      perPost: perPostTerms,
      featured: checkbox,
      qualityGate: checkbox,
      onExisting: z
        .enum(['update', 'new', 'skip'])
        .or(z.literal(''))
        .optional()
        .transform((v) => (v ? v : undefined)),
      postStatus: postStatusField,
      seed: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
      plannedAt: z
        .string()
        .optional()
        .transform((v) => (v && !Number.isNaN(Date.parse(v)) ? new Date(v) : undefined)),
      fingerprint: z.string().max(64).optional(),
    })
    .superRefine((v, ctx) => {
      const a = minutesOf(v.windowStart);
      const b = minutesOf(v.windowEnd);
      if (a !== null && b !== null && (b <= a || a >= 1440)) {
        ctx.addIssue({ code: 'custom', message: t('wordpress:drip.rules.window'), path: ['windowEnd'] });
      }
    })
    .transform((v) => ({
      siteId: v.siteId,
      resultIds: [...new Set(v.resultIds)],
      startDate: v.dripStartDate,
      rules: {
        perDay: v.perDay,
        windowStart: minutesOf(v.windowStart)!,
        windowEnd: minutesOf(v.windowEnd)!,
        weekdays: v.weekdays,
        spread: v.spread,
      },
      timeZone: validTimeZone(v.dripTimeZone) ?? validTimeZone(defaultTimeZone) ?? 'UTC',
      categories: v.categories,
      tags: v.tags,
      perPost: v.perPost,
      featured: v.featured,
      qualityGate: v.qualityGate,
      onExisting: v.onExisting,
      postStatus: v.postStatus,
      seed: v.seed,
      plannedAt: v.plannedAt,
      fingerprint: v.fingerprint,
    }));
}

/** The calendar's move form: a date and a time in the calendar's zone. */
export function moveSchema(t: Translate) {
  return z.object({
    publicationId: z.string().uuid(t('wordpress:bulk.notFound')),
    date: z.string({ required_error: t('wordpress:validation.date') }).regex(/^\d{4}-\d{2}-\d{2}$/, t('wordpress:validation.date')),
    time: z
      .string({ required_error: t('wordpress:validation.date') })
      .refine((v) => minutesOf(v) !== null && minutesOf(v)! < 1440, t('wordpress:validation.date')),
    tz: z.string().max(64).optional(),
  });
}
