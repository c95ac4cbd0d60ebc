import type { Db } from '../../../db/client';
import type { ClaimedItem } from './item.server';

// The sections of a post being written from its plan, stored one by one as each is answered
// (generation_sections): a worker that dies between sections leaves them here, and the next
// delivery of the same attempt writes only the ones missing.

type Item = Pick<ClaimedItem, 'resultId' | 'attempt'>;

/** The sections of this attempt already written, by their index in the plan. */
export async function storedSections(item: Item, db: Db): Promise<Map<number, string>> {
  const rows = await db<{ idx: number; markdown: string }[]>`
    SELECT idx, markdown FROM generation_sections WHERE result_id = ${item.resultId} AND attempt = ${item.attempt}`;
  return new Map(rows.map((r) => [r.idx, r.markdown]));
}

/** Keeps one answered section (a second delivery that wrote the same one keeps the first). */
export async function storeSection(item: Item, idx: number, markdown: string, db: Db): Promise<void> {
  await db`
    INSERT INTO generation_sections (result_id, attempt, idx, markdown)
    VALUES (${item.resultId}, ${item.attempt}, ${idx}, ${markdown})
    ON CONFLICT (result_id, attempt, idx) DO NOTHING`;
}
