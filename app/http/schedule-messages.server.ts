import type { WordPressServiceError } from '~/services/wordpress/errors.server';
import type { Translate } from '~/utils/auth-schemas';

/** Why a waiting post could not be moved, canceled, paused or resumed, in the reader's language. */
export function scheduleRefusal(t: Translate, code: WordPressServiceError['code']): string {
  switch (code) {
    case 'outside_rules':
      return t('wordpress:calendar.outsideRules');
    case 'no_capacity':
      return t('wordpress:calendar.dayFull');
    case 'past_start':
      return t('wordpress:calendar.past');
    case 'no_schedule':
      return t('wordpress:calendar.noSchedule');
    case 'not_waiting':
      return t('wordpress:scheduled.notWaiting');
    case 'publication_not_found':
      return t('wordpress:scheduled.notFound');
    default:
      return t('wordpress:calendar.notWaiting');
  }
}
