import { AppError } from '~/utils/app-error';
import type { Publication } from './publication-record.server';

// The refusals of the WordPress services: one code each, with its message key in the `wordpress`
// namespace (the HTTP edge gives the status and translates).

export const WORDPRESS_ERROR_CODES = [
  /** A site, result or run that is unknown or another user's. */
  'not_found',
  /** A result to publish in bulk that is unknown or another user's. */
  'result_not_found',
  /** A publication id that is unknown or another user's. */
  'publication_not_found',
  'not_pro',
  'no_content',
  /** Bulk: a result that is not a completed text result. */
  'not_publishable',
  /** To the media library alone: a result that is not a completed image. */
  'not_image',
  /** Bulk and drip: a first post before today. */
  'past_start',
  /** A move (the calendar) to a time already past. */
  'past_time',
  /** One post scheduled (status future) at a time already past. */
  'past_publish_date',
  'already_published',
  /** A move or cancel of a post no longer waiting to be published. */
  'not_queued',
  /** A retry of a post no longer waiting on its backoff. */
  'not_waiting',
  // Drip schedules (drip.server.ts). A move or a resume breaks the rules of a day (no_capacity,
  // outside_rules); a new drip's rules leave no room at all (no_room) or are not valid (bad_rules).
  'plan_changed',
  'no_capacity',
  'outside_rules',
  'no_room',
  'bad_rules',
  'no_schedule',
  /** The site's address is one the outbound guard refuses (private, loopback, another scheme). */
  'blocked_url',
  // Internal links (internal-links.server.ts): a link that is not the post's, a post that cannot be linked.
  'link_not_found',
  'not_linkable',
] as const;
export type WordPressErrorCode = (typeof WORDPRESS_ERROR_CODES)[number];

/**
 * Each code's message in the `wordpress` namespace (already_published in bulk:
 * bulk.existing.conflict). A situation that needs its own words has its own code, so every page
 * shows the refusal's message as it is.
 */
const WORDPRESS_ERROR_KEYS: Record<WordPressErrorCode, string> = {
  not_found: 'sites.notFound',
  result_not_found: 'bulk.notFound',
  publication_not_found: 'scheduled.notFound',
  not_pro: 'publish.proOnly',
  no_content: 'publish.noContent',
  not_publishable: 'bulk.notPublishable',
  not_image: 'publish.notImage',
  past_start: 'validation.pastStart',
  past_time: 'calendar.past',
  past_publish_date: 'publish.pastDate',
  already_published: 'publish.existing.conflict',
  not_queued: 'calendar.notWaiting',
  not_waiting: 'scheduled.notWaiting',
  plan_changed: 'drip.preview.changed',
  no_capacity: 'calendar.dayFull',
  outside_rules: 'calendar.outsideRules',
  no_room: 'drip.noCapacity',
  bad_rules: 'drip.rules.window',
  no_schedule: 'calendar.noSchedule',
  blocked_url: 'sites.blockedUrl',
  link_not_found: 'linkErrors.linkNotFound',
  not_linkable: 'linkErrors.notLinkable',
};

export class WordPressServiceError extends AppError<'wordpress', WordPressErrorCode> {
  constructor(
    code: WordPressErrorCode,
    message: string = code,
    /** already_published: the earlier publication of the result to the site. */
    readonly existing?: Publication,
    /** already_published in bulk: the earlier publication of each such result (by result id). */
    readonly existingMany: Publication[] = [],
  ) {
    super('wordpress', code, existingMany.length > 0 ? 'bulk.existing.conflict' : WORDPRESS_ERROR_KEYS[code], message);
    this.name = 'WordPressServiceError';
  }
}
