import type { TextSettings } from '../providers.server';
import type { AddableSection } from '~/utils/quality/fixes';

// The messages of the fixes that continue a post rather than write it again: the post so far goes
// with each request (as Markdown), and the model is asked for what comes next or for one section.
// The first line names the topic after "about:", as every generation prompt does.

export type FixSettings = TextSettings & { embedImage?: boolean };

/** The post sent along: long enough for any post we write, bounded for a pasted-in giant. */
const POST_MAX_CHARACTERS = 40_000;

const voice = (s: FixSettings) =>
  [
    `Language: ${s.language}.`,
    `Tone of voice: ${s.toneOfVoice}. Point of view: ${s.pointOfView}. Writing style: ${s.writingStyle}.`,
    `Reading level: ${s.readingLevel}.`,
  ].join('\n');

const postSoFar = (markdown: string) => `The post so far:\n"""\n${markdown.slice(0, POST_MAX_CHARACTERS)}\n"""`;

/** The request that continues a post short of its length with new body sections (never starting over). */
export function continuationPrompt(
  post: { topic: string; title: string; markdown: string },
  words: number,
  s: FixSettings,
): { system: string; user: string } {
  const system = [
    'You are an expert blog writer. Continue the blog post you are given: write only the new sections that come next, in Markdown, each under a "## " heading.',
    'Do not repeat, rewrite or summarise what is already written; write no title, introduction, conclusion, FAQ or key takeaways. Do not use HTML.',
  ].join(' ');
  const user = [
    `Continue the blog post "${post.title}" about: ${post.topic}`,
    postSoFar(post.markdown),
    voice(s),
    s.includeBulletPoints ? 'Use bullet-point lists where they help.' : 'Do not use bullet-point lists.',
    `Length: about ${words} more words.`,
  ].join('\n');
  return { system, user };
}

const WHAT: Record<AddableSection, string> = {
  intro: 'An engaging introduction that opens the post, before its first heading. Write it without a heading.',
  keyTakeaways: 'A "Key takeaways" section: the post\'s main points as a short bullet list.',
  faq: 'A short FAQ section: 3 to 5 questions readers ask that the post leaves open, each as a "### " heading with the question followed by its answer.',
  conclusion: 'A conclusion that rounds the post off, without repeating it sentence by sentence.',
};

/** Words asked for each section (a short part of a post). */
export const SECTION_WORDS: Record<AddableSection, number> = { intro: 120, keyTakeaways: 120, faq: 250, conclusion: 150 };

/** The request for one missing section of a post. */
export function sectionFixPrompt(
  post: { topic: string; title: string; markdown: string },
  section: AddableSection,
  s: FixSettings,
): { system: string; user: string } {
  const system = [
    'You are an expert blog writer. Write only the section asked for, in Markdown, for the post you are given. Do not use HTML.',
    section === 'intro'
      ? 'Write no heading and no title.'
      : 'Start with the section\'s heading as a "## " heading in the post\'s language.',
  ].join(' ');
  const user = [
    `Write one part of the blog post "${post.title}" about: ${post.topic}`,
    postSoFar(post.markdown),
    `Section: ${WHAT[section]}`,
    voice(s),
    `Length: about ${SECTION_WORDS[section]} words.`,
  ].join('\n');
  return { system, user };
}
