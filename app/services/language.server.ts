import { sql } from '../../db/client';
import type { Language } from '~/i18n';

/** Remembers a signed-in user's interface language, so their e-mails follow it. */
export async function saveUserLanguage(userId: string, language: Language): Promise<void> {
  await sql`UPDATE users SET language = ${language}, updated_at = now() WHERE id = ${userId} AND language <> ${language}`;
}
