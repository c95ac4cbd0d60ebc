import { z } from 'zod';
import type { Translate } from './auth-schemas';

// A run's internal-link settings (issue 26 §6), the same rules for the JSON API and the forms.

/** The most links one post gets. */
export const LINK_COUNT_MAX = 10;

/** A switch that may be left out (undefined: kept as it is). */
const optionalSwitch = z
  .union([z.boolean(), z.literal('on'), z.literal('true'), z.literal('false'), z.literal('')])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === true || v === 'on' || v === 'true'));

/**
 * `{ enabled, count, sitePosts, siteId }`: whether the run's posts are linked, how many links each
 * gets (1-10), whether links may point at a site's existing posts, and which site (null or '': the
 * default site). Each field may be left out: it keeps its value.
 */
export function runLinkSettingsSchema(t: Translate) {
  const count = t('wordpress:linkErrors.count', { max: LINK_COUNT_MAX });
  const site = t('wordpress:validation.site');
  return z.object({
    enabled: optionalSwitch,
    count: z.coerce.number({ invalid_type_error: count }).int(count).min(1, count).max(LINK_COUNT_MAX, count).optional(),
    sitePosts: optionalSwitch,
    siteId: z
      .union([z.null(), z.literal(''), z.coerce.number({ invalid_type_error: site }).int(site).positive(site)])
      .optional()
      .transform((v) => (v === '' ? null : v)),
  });
}

export type RunLinkSettingsInput = z.output<ReturnType<typeof runLinkSettingsSchema>>;
