/**
 * The text of HTML character references as our articles and the models write them: the named few,
 * numeric ones, and &nbsp; as a plain space (the text goes into titles, descriptions and schema
 * data, where a no-break space is never meant). &amp; last, so "&amp;lt;" stays "&lt;".
 */
export function decodeEntities(s: string): string {
  return s
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}
