import { env } from '~/runtime/env.server';

/**
 * The address customers write to: CONTACT_EMAIL, else MAIL_FROM's address — or, when that is a
 * no-reply sender, support@ its domain.
 */
export function contactEmail(): string {
  if (env.CONTACT_EMAIL) return env.CONTACT_EMAIL;
  const from = /<([^>]+)>/.exec(env.MAIL_FROM)?.[1] ?? env.MAIL_FROM.trim();
  const [local, domain] = from.split('@');
  if (!domain) return 'support@postforge.local';
  return /^no-?reply$/i.test(local ?? '') ? `support@${domain}` : from;
}
