import { describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { createGenUser } from '../support/generation';

// A search term that matches more results than the count cap takes the other path of
// results.server.ts (walk the date index newest first): its pages must be the newest matches, of
// the asked type, in order.

describe('results search with a common term', () => {
  it('pages through more matches than the cap, newest first, with a type filter', async () => {
    const { listResults, SEARCH_COUNT_CAP } = await import('../../app/services/results.server');
    const db = getSql();
    const u = await createGenUser(db, { credits: 0, label: 'search' });
    const n = SEARCH_COUNT_CAP + 300;
    const [run] = await db<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${u.id}, 'text', 'openai/gpt-4o-mini-search-preview', ${n}) RETURNING id`;
    // Every third result matches "lavender"; every fifth is an image.
    await db`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, status, model, credits, search_text, created_at)
      SELECT ${u.id}, ${run!.id}, i, CASE WHEN i % 5 = 0 THEN 'image' ELSE 'text' END, 'topic ' || i, 'Title ' || i, 'completed',
        'openai/gpt-4o-mini-search-preview', 1,
        'Title ' || i || CASE WHEN i % 3 = 0 THEN ' about lavender fields' ELSE ' about something else' END,
        now() - make_interval(secs => ${n} - i)
      FROM generate_series(1, ${n} * 3) AS i`;
    const expected = (type: 'text' | null) =>
      Array.from({ length: n * 3 }, (_, k) => n * 3 - k)
        .filter((i) => i % 3 === 0 && (type === null || (type === 'text') === (i % 5 !== 0)))
        .map((i) => `Title ${i}`);

    const first = await listResults(u.id, { search: 'Lavender', limit: 20, page: 1 });
    expect(first.pagination.total).toBe(SEARCH_COUNT_CAP + 1); // capped: "more than 1,000"
    expect(first.results.map((r) => r.title)).toEqual(expected(null).slice(0, 20));

    const third = await listResults(u.id, { search: 'lavender', type: 'text', limit: 20, page: 3 });
    expect(third.results.map((r) => r.title)).toEqual(expected('text').slice(40, 60));
    expect(third.results.every((r) => r.type === 'text')).toBe(true);
  });
});
