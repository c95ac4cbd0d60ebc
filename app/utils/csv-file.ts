// CSV import rules shared by the browser (drop zone) and the server (SPEC §5, §9).

export const CSV_TEMPLATE_NAME = 'blog-topics-template.csv';
export const CSV_TEMPLATE_HEADER = 'topic_or_keyword';
/** The template's contents: the header row and two example topics. */
export const CSV_TEMPLATE_CONTENT = `${CSV_TEMPLATE_HEADER}\r\nHow to start a vegetable garden\r\nBest budget travel tips\r\n`;

const ACCEPTED_TYPES = new Set([
  'text/csv',
  'application/csv',
  'text/x-csv',
  'application/vnd.ms-excel',
  'text/tab-separated-values',
  'text/plain',
]);
const ACCEPTED_EXTENSIONS = ['.csv', '.tsv', '.txt'];

/**
 * SPEC §5: a CSV by type or a name ending .csv. Excel's "Unicode text" saves tab-separated `.txt`
 * files, which we accept as well (the parser detects the delimiter and the encoding).
 */
export function isCsvFile(file: { name: string; type: string }): boolean {
  const name = file.name.toLowerCase();
  if (ACCEPTED_EXTENSIONS.some((ext) => name.endsWith(ext))) return true;
  return ACCEPTED_TYPES.has(file.type.split(';')[0]!.trim().toLowerCase());
}

/** A topic as one line of the text area: inner line breaks and runs of spaces become one space. */
export function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

export type CsvRow = { topic: string; title?: string; keywords?: string; instructions?: string };
