// Splitting a text area into its lines, apart from the request schemas: the browser uses these as
// the reader types, before (or without) the validation's script, which carries zod.

/** Topics from the text area: one per line, trimmed, empty lines dropped. */
export function splitTopics(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** The keyword lines: split by line, trimmed, empty ones dropped. */
export function keywordLines(value: string): string[] {
  return value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
}
