import { sql, type Db } from '../../../db/client';
import { getLogger } from '~/runtime/logger.server';
import { providerKey } from '../api-keys.server';
import { chooseTerms, htmlToText } from '../providers.server';
import { getResult } from '../results.server';
import { listCategories, listTags, type WpCategory } from './client-content.server';
import type { WpCallOptions } from './client.server';
import { isPublishable, requirePro } from './publications.server';
import { siteCredentials } from './sites.server';

// Categories and tags chosen per post by the model, among the site's existing ones (read through
// its REST API; a name the model invents is dropped, never created). The choices are proposals the
// user reviews and edits before publishing. One call of the default text model per post, included:
// no credits are charged (as for the prompt translation of image runs).

export type TermChoice = { resultId: string; title: string; categories: number[]; tags: string[] };

export type TermChoices = {
  /** The site's categories and tags the choices were made from (the review lists them). */
  categories: WpCategory[];
  tags: string[];
  choices: TermChoice[];
  /** Why nothing (or not every post) was chosen: the site could not be read, no text key, the model failed. */
  failed: 'site' | 'no_key' | 'model' | null;
};

/** The posts the model is asked about at most per request (each is one call). */
export const TERM_CHOICES_MAX = 50;

/**
 * Asks the model, for each of the user's publishable results (in order, at most TERM_CHOICES_MAX),
 * which of the site's categories and tags fit. Pro only. A post the model could not answer for gets
 * none (the review shows it empty) and `failed` says so.
 */
export async function chooseTermsPerPost(
  userId: string,
  siteId: number,
  resultIds: string[],
  opts: WpCallOptions = {},
  db: Db = sql,
): Promise<TermChoices> {
  await requirePro(userId, db);
  const creds = await siteCredentials(userId, siteId, db);
  let categories: WpCategory[];
  let tags: string[];
  try {
    [categories, tags] = await Promise.all([listCategories(creds, opts), listTags(creds, opts)]);
  } catch (err) {
    getLogger().warn({ err: String(err), siteId }, 'could not read the site’s categories and tags');
    return { categories: [], tags: [], choices: [], failed: 'site' };
  }
  const key = await providerKey(userId, 'openrouter', db);
  if (!key) return { categories, tags, choices: [], failed: 'no_key' };
  const byName = new Map(categories.map((c) => [c.name.toLocaleLowerCase(), c.id]));
  const tagByName = new Map(tags.map((t) => [t.toLocaleLowerCase(), t]));
  const choices: TermChoice[] = [];
  let failed: TermChoices['failed'] = null;
  for (const id of [...new Set(resultIds)].slice(0, TERM_CHOICES_MAX)) {
    const result = await getResult(userId, id, db).catch(() => null);
    if (!result || !isPublishable(result)) continue;
    const title = result.title?.trim() || result.prompt;
    try {
      const answer = await chooseTerms(
        key,
        { title, text: htmlToText(result.content ?? '') },
        { categories: categories.map((c) => c.name), tags },
      );
      const ids = answer.categories.flatMap((n) => byName.get(n.trim().toLocaleLowerCase()) ?? []);
      const names = answer.tags.flatMap((n) => tagByName.get(n.trim().toLocaleLowerCase()) ?? []);
      choices.push({ resultId: id, title, categories: [...new Set(ids)], tags: [...new Set(names)] });
    } catch (err) {
      getLogger().warn({ err: String(err), resultId: id }, 'the model could not choose categories and tags');
      failed = 'model';
      choices.push({ resultId: id, title, categories: [], tags: [] });
    }
  }
  return { categories, tags, choices, failed };
}
