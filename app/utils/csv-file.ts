// CSV import rules shared by the browser (drop zone) and the server.

export const CSV_TEMPLATE_NAME = 'blog-topics-template.csv';
export const CSV_TEMPLATE_HEADER = 'topic_or_keyword';
/** The template's contents: the header row and two example topics. */
export const CSV_TEMPLATE_CONTENT = `${CSV_TEMPLATE_HEADER}\r\nHow to start a vegetable garden\r\nBest budget travel tips\r\n`;

// Browsers label a .csv file text/csv, or application/vnd.ms-excel on Windows with Excel installed.
const ACCEPTED_TYPES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'application/vnd.ms-excel']);

/**
 * A CSV by type or a name ending .csv; anything else (a `.txt` of notes, a text/plain
 * file) is refused with 'Invalid File' / 'Please upload a CSV file.' The parser still
 * reads semicolon- and tab-separated content and UTF-16 inside a .csv.
 */
export function isCsvFile(file: { name: string; type: string }): boolean {
  if (file.name.toLowerCase().endsWith('.csv')) return true;
  return ACCEPTED_TYPES.has(file.type.split(';')[0]!.trim().toLowerCase());
}

/** A topic as one line of the text area: inner line breaks and runs of spaces become one space. */
export function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

export type CsvRow = { topic: string; title?: string; keywords?: string; instructions?: string };

/** The optional per-row columns of a CSV (beyond the topic): carried into that item's prompt and shown on its result. */
export type TopicBrief = { title?: string; keywords?: string; instructions?: string };
export const BRIEF_FIELDS = ['title', 'keywords', 'instructions'] as const;
/** Longest value kept of a per-row column (the title: of the result's title). */
export const BRIEF_MAX = { title: 300, keywords: 2000, instructions: 2000 } as const;

/** How a topic is matched to its CSV row (the parser drops duplicates the same way). */
export const topicKey = (topic: string) => oneLine(topic).toLowerCase();

/** A row's brief (its non-empty optional columns, trimmed and bounded), or null when it has none. */
export function briefOf(row: TopicBrief): TopicBrief | null {
  const brief: TopicBrief = {};
  for (const field of BRIEF_FIELDS) {
    const value = typeof row[field] === 'string' ? row[field]!.trim().slice(0, BRIEF_MAX[field]) : '';
    if (value) brief[field] = field === 'title' ? oneLine(value) : value;
  }
  return Object.keys(brief).length ? brief : null;
}

/** The rows that carry a brief, by topic key (the first row of a topic wins). */
export function briefsByTopic(rows: readonly (TopicBrief & { topic: string })[] | null | undefined): Map<string, TopicBrief> {
  const map = new Map<string, TopicBrief>();
  for (const row of rows ?? []) {
    const brief = briefOf(row);
    const key = topicKey(row.topic ?? '');
    if (brief && key && !map.has(key)) map.set(key, brief);
  }
  return map;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;
type Dropped = { duplicates: number; emptyRows: number; tooLong?: number };

/**
 * What an upload left out, as one phrase ("1 duplicate and 1 empty row"; '' when nothing). Each
 * count is its own phrase, so a language whose plural rules have one form (Chinese) still reads
 * its number in the text.
 */
export function csvSkippedPhrase(t: Translate, { duplicates, emptyRows, tooLong = 0 }: Dropped): string {
  const parts = [
    duplicates ? t('csv.skipped.duplicates', { count: duplicates }) : '',
    emptyRows ? t('csv.skipped.emptyRows', { count: emptyRows }) : '',
    tooLong ? t('csv.skipped.tooLong', { count: tooLong }) : '',
  ].filter(Boolean);
  if (parts.length < 2) return parts[0] ?? '';
  return t('csv.skipped.list', { first: parts.slice(0, -1).join(t('csv.skipped.separator')), last: parts[parts.length - 1] });
}

/** What an upload loaded and what it left out: "Loaded 3 topics; skipped 1 duplicate and 1 empty row." */
export function csvLoadedSummary(t: Translate, counts: Dropped & { topics: number }): string {
  const topics = t('csv.skipped.topics', { count: counts.topics });
  const skipped = csvSkippedPhrase(t, counts);
  return skipped ? t('csv.summarySkipped', { topics, skipped }) : t('csv.summary', { topics });
}
