import { parse } from 'csv-parse/sync';
import { CSV_MAX_BYTES, CSV_MAX_ROWS, MAX_TOPIC_LENGTH } from '~/catalogue';
import { CSV_TEMPLATE_HEADER, oneLine, type CsvRow } from '~/utils/csv-file';
import { AppError } from '~/utils/app-error';

// POST /api/upload-csv: the topics of an uploaded CSV. The file is decoded here (UTF-8 with
// or without BOM, UTF-16 as Excel's "Unicode text" saves it, else Windows-1252), its delimiter is
// detected from the header row (comma, semicolon as European Excel writes, or tab), then parsed by
// csv-parse. Cells are data, never formulas: `=HYPERLINK(...)` comes back as that text.

export type CsvImport = {
  prompts: string[];
  rows: CsvRow[];
  /** Data rows read (empty ones included). */
  totalRows: number;
  duplicates: number;
  emptyRows: number;
  /** Rows whose topic is longer than MAX_TOPIC_LENGTH (left out). */
  tooLong: number;
  delimiter: ',' | ';' | '\t';
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
  /** The header's column used for the topics. */
  column: string;
};

/** Why an upload gives no topics (missingFile: the request carried no file; the HTTP side says so). */
export const CSV_ERROR_CODES = ['tooLarge', 'tooManyRows', 'invalidFormat', 'noTopics', 'notCsv', 'missingFile'] as const;
export type CsvErrorCode = (typeof CSV_ERROR_CODES)[number];

/** An upload refused, as the user reads it (`inputs:csv.errors.<code>`, about the `file` field). */
export class CsvError extends AppError<'inputs', CsvErrorCode> {
  constructor(code: CsvErrorCode) {
    const params = { maxRows: CSV_MAX_ROWS.toLocaleString('en-US'), maxMb: CSV_MAX_BYTES / 1024 / 1024 };
    super('inputs', code, `csv.errors.${code}`, `CSV upload refused: ${code}`, params, 'file');
    this.name = 'CsvError';
  }
}
export type CsvResult = { ok: true; data: CsvImport } | { ok: false; code: CsvErrorCode };

const OPTIONAL_COLUMNS = ['title', 'keywords', 'instructions'] as const;

function decode(bytes: Uint8Array): { text: string; encoding: CsvImport['encoding'] } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return utf8(bytes.subarray(3));
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  // UTF-16 without a BOM: ASCII text leaves every other byte zero.
  const sample = bytes.subarray(0, 512);
  if (sample.length >= 4) {
    let evenZeros = 0;
    let oddZeros = 0;
    for (let i = 0; i < sample.length; i++) {
      if (sample[i] !== 0) continue;
      if (i % 2) oddZeros++;
      else evenZeros++;
    }
    const half = sample.length / 2;
    if (oddZeros > half * 0.6 && evenZeros === 0) return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'utf-16le' };
    if (evenZeros > half * 0.6 && oddZeros === 0) return { text: new TextDecoder('utf-16be').decode(bytes), encoding: 'utf-16be' };
  }
  return utf8(bytes);
}

function utf8(bytes: Uint8Array): { text: string; encoding: CsvImport['encoding'] } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    // Older Excel on Windows saves CSV in the system code page.
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}

/** The delimiter that occurs most often outside quotes in the header row (comma on a tie or none). */
export function detectDelimiter(text: string): CsvImport['delimiter'] {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (let i = 0; i < text.length && i < 64 * 1024; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c in counts) counts[c as keyof typeof counts]++;
  }
  if (counts['\t'] > counts[','] && counts['\t'] >= counts[';']) return '\t';
  if (counts[';'] > counts[',']) return ';';
  return ',';
}

const normalise = (header: string) =>
  header
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** Parses an uploaded file's bytes. Never throws for any input. */
export function parseCsvUpload(bytes: Uint8Array): CsvResult {
  if (bytes.byteLength > CSV_MAX_BYTES) return { ok: false, code: 'tooLarge' };
  const decoded = decode(bytes);
  if (!decoded) return { ok: false, code: 'invalidFormat' };
  // A file with NUL characters left after decoding is binary, not text.
  if (decoded.text.includes('\u0000')) return { ok: false, code: 'invalidFormat' };
  const text = decoded.text.replace(/^\uFEFF/, '');
  const delimiter = detectDelimiter(text);

  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
      max_record_size: CSV_MAX_BYTES,
    }) as string[][];
  } catch {
    return { ok: false, code: 'invalidFormat' };
  }

  // The first line is the header row.
  const header = records.shift();
  if (!header || header.every((h) => !h.trim())) return { ok: false, code: 'noTopics' };
  const names = header.map(normalise);
  const exact = names.indexOf(CSV_TEMPLATE_HEADER);
  const topicIndex = exact >= 0 ? exact : 0;
  const optional = Object.fromEntries(
    OPTIONAL_COLUMNS.map((c) => [c, names.indexOf(c)]).filter(([, i]) => (i as number) >= 0 && i !== topicIndex),
  ) as Partial<Record<(typeof OPTIONAL_COLUMNS)[number], number>>;

  // Trailing blank lines are not rows.
  while (records.length && records[records.length - 1]!.every((c) => !c.trim())) records.pop();
  if (records.length > CSV_MAX_ROWS) return { ok: false, code: 'tooManyRows' };

  const seen = new Set<string>();
  const rows: CsvRow[] = [];
  let duplicates = 0;
  let emptyRows = 0;
  let tooLong = 0;
  for (const record of records) {
    const topic = oneLine(record[topicIndex] ?? '');
    if (!topic) {
      emptyRows++;
      continue;
    }
    if (topic.length > MAX_TOPIC_LENGTH) {
      tooLong++;
      continue;
    }
    const key = topic.toLowerCase();
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    const row: CsvRow = { topic };
    for (const [column, index] of Object.entries(optional)) {
      const value = record[index]?.trim();
      if (value) row[column as (typeof OPTIONAL_COLUMNS)[number]] = value.slice(0, 2000);
    }
    rows.push(row);
  }
  if (!rows.length) return { ok: false, code: 'noTopics' };
  return {
    ok: true,
    data: {
      prompts: rows.map((r) => r.topic),
      rows,
      totalRows: records.length,
      duplicates,
      emptyRows,
      tooLong,
      delimiter,
      encoding: decoded.encoding,
      column: header[topicIndex]!.replace(/^\uFEFF/, '').trim(),
    },
  };
}
