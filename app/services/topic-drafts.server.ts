import { sql, type Db } from '../../db/client';
import type { CsvRow } from '~/utils/csv-file';

// Topics produced by a plain form post (CSV upload or title generation without JavaScript). The post
// stores them and redirects to `/app?topics=<id>`; the workspace loader reads them back into the
// text area (a successful upload puts the topics into the text area and returns to manual).

export type TopicDraft = { prompts: string[]; rows?: CsvRow[]; source: 'csv' | 'titles' };

export const TOPIC_DRAFT_PARAM = 'topics';

export async function saveTopicDraft(userId: string, draft: TopicDraft, db: Db = sql): Promise<string> {
  const [row] = await db<{ id: string }[]>`
    INSERT INTO topic_drafts (user_id, content) VALUES (${userId}, ${db.json(draft as never)}) RETURNING id`;
  return row!.id;
}

/** The user's own draft of the last day; another user's id, a malformed or an old one → null. */
export async function loadTopicDraft(userId: string, id: string | null | undefined, db: Db = sql): Promise<TopicDraft | null> {
  if (!id || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await db<{ content: TopicDraft }[]>`
    SELECT content FROM topic_drafts WHERE id = ${id} AND user_id = ${userId} AND created_at > now() - interval '1 day'`;
  return row?.content ?? null;
}

export async function purgeTopicDrafts(db: Db = sql): Promise<number> {
  const result = await db`DELETE FROM topic_drafts WHERE created_at <= now() - interval '1 day'`;
  return result.count;
}
