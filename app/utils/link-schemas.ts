import { z } from 'zod';
import type { Translate } from './auth-schemas';

// The internal-links review forms of a run's page, the same on the server and in
// the browser. Parsed without Conform's coercion (disableAutoCoercion): every field is read as the
// form sends it. Messages come from the `workspace` namespace in the user's language.

/** Links per post: at least one, at most this many (generation_runs.link_count's CHECK). */
export const LINK_COUNT_MAX = 10;

/** An unchecked box sends nothing: off. */
const checkbox = z
  .unknown()
  .optional()
  .transform((v) => v === 'on' || v === 'true');

const uuid = (message: string) => z.string({ required_error: message }).trim().uuid(message);

export function runLinkSettingsSchema(t: Translate) {
  const count = t('workspace:links.validation.count', { max: LINK_COUNT_MAX });
  const site = t('workspace:links.validation.site');
  return z.object({
    intent: z.literal('link-run'),
    enabled: checkbox,
    count: z
      .string({ required_error: count })
      .trim()
      .regex(/^\d{1,2}$/, count)
      .transform(Number)
      .refine((n) => n >= 1 && n <= LINK_COUNT_MAX, count),
    sitePosts: checkbox,
    // Blank: the user's default site when the run is linked.
    siteId: z
      .string()
      .trim()
      .optional()
      .refine((v) => !v || /^\d{1,15}$/.test(v), site)
      .transform((v) => (v ? Number(v) : null)),
  });
}

export function relinkPostSchema(t: Translate) {
  return z.object({ intent: z.literal('relink-post'), resultId: uuid(t('workspace:links.validation.post')) });
}

export function removeLinkSchema(t: Translate) {
  return z.object({ intent: z.literal('remove-link'), linkId: uuid(t('workspace:links.validation.link')) });
}

/** Which of the run page's forms was sent (none: the Cancel generation button). */
export const runPageIntent = z.object({
  intent: z.enum(['cancel', 'link-run', 'relink-post', 'remove-link']).optional().default('cancel'),
});

/** A switch of the JSON API that may be left out (undefined: kept as it is). */
const optionalSwitch = z
  .union([z.boolean(), z.literal('on'), z.literal('true'), z.literal('false'), z.literal('')])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === true || v === 'on' || v === 'true'));

/**
 * PUT /api/jobs/{id}/links: `{ enabled, count, sitePosts, siteId }` as JSON, each field optional (left
 * out: kept as it is); siteId null: the default site. The same rules and messages as the form.
 */
export function runLinkSettingsApiSchema(t: Translate) {
  const count = t('workspace:links.validation.count', { max: LINK_COUNT_MAX });
  const site = t('workspace:links.validation.site');
  return z.object({
    enabled: optionalSwitch,
    count: z.coerce.number({ invalid_type_error: count }).int(count).min(1, count).max(LINK_COUNT_MAX, count).optional(),
    sitePosts: optionalSwitch,
    siteId: z
      .union([z.literal(''), z.coerce.number({ invalid_type_error: site }).int(site).positive(site)])
      .nullable()
      .optional()
      .transform((v) => (v === '' ? null : v)),
  });
}

export type RunLinkSettingsInput = z.output<ReturnType<typeof runLinkSettingsApiSchema>>;
