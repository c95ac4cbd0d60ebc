import { sql, type Db } from '../../db/client';
import type { Language } from '~/i18n';

/** Remembers a signed-in user's interface language, so their e-mails follow it. */
export async function saveUserLanguage(userId: string, language: Language, db: Db = sql): Promise<void> {
  await db`UPDATE users SET language = ${language}, updated_at = now() WHERE id = ${userId} AND language <> ${language}`;
}
