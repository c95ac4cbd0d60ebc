// A post's title and the H1 at the top of its HTML. The title is stored apart from the body (WordPress
// prints it as the page's H1), so a leading H1 in the body would be a second one. Pure: the result
// editor's save and publishing share it.

import { decodeEntities } from './html-entities';

/** The longest title kept (generation cuts titles to the same length). */
export const TITLE_MAX = 300;

const LEADING_H1 = /^\s*<h1\b[^>]*>([\s\S]*?)<\/h1\s*>\s*/i;

/** Text of a heading or title on one line, for showing and comparing. */
export function headingText(html: string): string {
  return decodeEntities(html.replace(/<br\s*\/?>/gi, ' ').replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

const same = (a: string, b: string) => headingText(a).toLocaleLowerCase() === headingText(b).toLocaleLowerCase();

/** The body's leading H1 (its text) and the body without it; null when the body does not start with one. */
export function splitLeadingH1(html: string): { heading: string; body: string } | null {
  const m = LEADING_H1.exec(html);
  if (!m) return null;
  return { heading: headingText(m[1]!), body: html.slice(m[0].length) };
}

/**
 * An edit of a result: the title it keeps and its body. The body never keeps a leading H1: its text
 * is the title (so editing the H1 in the content renames the post), unless the title itself was
 * changed in the same edit, which wins. An emptied H1 leaves the title as it was.
 */
export function editedTitle(stored: string, given: string | undefined, html: string): { title: string; html: string } {
  const typed = given?.trim() ? given.trim().slice(0, TITLE_MAX) : undefined;
  const lead = splitLeadingH1(html);
  const titleChanged = typed !== undefined && typed !== stored;
  if (titleChanged) return { title: typed, html: lead ? lead.body : html };
  if (lead) return { title: lead.heading ? lead.heading.slice(0, TITLE_MAX) : stored, html: lead.body };
  return { title: typed ?? stored, html };
}

/**
 * The body as published under `title`: a leading H1 repeating the title is dropped and every other
 * H1 becomes an H2, so the title WordPress prints stays the page's only H1.
 */
export function withoutTitleHeading(html: string, title: string): string {
  const lead = splitLeadingH1(html);
  const body = lead && same(lead.heading, title) ? lead.body : html;
  return body.replace(/<(\/?)h1(\s[^>]*)?>/gi, (_, slash: string, attrs?: string) => `<${slash}h2${attrs ?? ''}>`);
}
