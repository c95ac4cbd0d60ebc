import { jobSql, transaction, type Db } from '../../../db/client';
import { wordsByLength } from '~/catalogue';
import { getLogger } from '~/runtime/logger.server';
import { CHARACTERS_PER_WORD } from '~/utils/quality/length-check';
import {
  articleMarkdown,
  fallbackHeading,
  insertContinuation,
  insertSection,
  lengthShortfall,
  sectionHeadingPattern,
  type AddableSection,
} from '~/utils/quality/fixes';
import type { QualityReport } from '~/utils/quality/report';
import type { FailureParams } from '~/utils/generation-errors';
import type { SeoFields } from '~/utils/seo-fields';
import { fixHoldKey, LedgerError, settleHolds } from '../ledger.server';
import { providerKey } from '../api-keys.server';
import { markdownToArticle, ProviderError, requestChat } from '../providers.server';
import { updateResultContent } from '../results.server';
import { withdrawApproval } from '../quality/review.server';
import { isInfrastructureError } from '../generation/outage.server';
import { runText } from '../generation/output.server';
import { continuationPrompt, SECTION_WORDS, sectionFixPrompt, type FixSettings } from './prompts.server';

// What the `result-fix` job does with one fix: the provider's work (a fresh post, a continuation,
// or one section), then, in one transaction, the post's new text (its quality report computed
// again), the fix completed and its hold posted. Any failure (the provider's, the post edited
// meanwhile, a fault of ours) ends the fix failed with its hold voided and the post as it was.
// Every booking is conditional on the fix still processing, so a job delivered twice books once.

type FixRow = {
  kind: 'regenerate' | 'expand' | 'add_section';
  section: AddableSection | null;
  status: string;
  current: boolean;
  content: string;
  title: string | null;
  prompt: string;
  model: string;
  metadata: Record<string, unknown>;
  settings: Record<string, unknown>;
  quality: QualityReport | null;
};

type Failure = { code: string; params?: FailureParams };

/** What a fix makes: the post's new HTML, and for a regenerated post its new title and SEO fields. */
type Fixed = { html: string; edit: (Partial<SeoFields> & { title?: string }) | null };

export type FixOutcome = 'completed' | 'failed' | 'skipped';

class Changed extends Error {}

/** Works one fix (the job's payload). Throws only for the database's failures (the job is retried). */
export async function runFix(job: { fixId: string; resultId: string; userId: string }, db: Db = jobSql): Promise<FixOutcome> {
  const { fixId, resultId, userId } = job;
  const [fix] = await db<FixRow[]>`
    SELECT f.kind, f.section, f.status, r.updated_at = f.base_updated_at AND r.status = 'completed' AS current,
      r.content, r.title, r.prompt, r.model, r.metadata, g.settings, r.quality
    FROM result_fixes f JOIN generation_results r ON r.id = f.result_id JOIN generation_runs g ON g.id = r.run_id
    WHERE f.id = ${fixId} AND f.user_id = ${userId} AND f.result_id = ${resultId}`;
  if (!fix) return releaseIfGone(job, db);
  if (fix.status !== 'processing') return 'skipped';
  if (!fix.current) return fail(job, { code: 'result_changed' }, db);
  let fixed: Fixed;
  try {
    fixed = await fixedPost(job, fix, db);
  } catch (err) {
    if (err instanceof ProviderError) return fail(job, { code: err.code, params: err.params }, db);
    if (isInfrastructureError(err)) throw err;
    // A fault of ours: logged with its stack; the user reads a plain sentence, never its text.
    getLogger().error({ err, fixId }, 'result fix error');
    return fail(job, { code: 'internal' }, db);
  }
  try {
    const booked = await book(job, fixed, db);
    return booked === 'skipped' ? releaseIfGone(job, db) : booked;
  } catch (err) {
    if (err instanceof Changed) return fail(job, { code: 'result_changed' }, db);
    // The sweeper released the hold (the fix waited far too long): it is not charged, nor applied.
    if (err instanceof LedgerError && err.code === 'already_resolved') return fail(job, { code: 'hold_expired' }, db);
    throw err;
  }
}

/** The post's text after the fix, from the text provider. */
async function fixedPost(job: { fixId: string; resultId: string; userId: string }, fix: FixRow, db: Db): Promise<Fixed> {
  const key = await providerKey(job.userId, 'openrouter', db);
  if (!key) throw new ProviderError('no_text_key', 'No API key for the text provider.', false);
  const settings = { ...fix.settings, model: fix.model } as unknown as FixSettings;
  const title = fix.title ?? fix.prompt;
  const post = { topic: fix.prompt, title, markdown: articleMarkdown(fix.content) };
  const chat = (messages: { system: string; user: string }, words: number) =>
    requestChat(key, fix.model, messages, {
      temperature: settings.temperature ?? 0.7,
      // Room for the words asked (about 1.6 tokens a word, more for CJK), never less than a paragraph.
      maxTokens: Math.max(256, Math.ceil(words * 2.5)),
      check: (text) => markdownBody(text) || null,
    });

  if (fix.kind === 'regenerate') {
    // A fresh post of the topic with the run's settings; the post's image (if any) is kept, not made again.
    const out = await runText(
      { jobId: job.fixId, resultId: job.resultId, userId: job.userId, attempt: 0, leased: true, deliveries: 0 },
      {
        id: job.resultId,
        type: 'text',
        prompt: fix.prompt,
        model: fix.model,
        settings: { ...fix.settings, embedImage: false },
        metadata: fix.metadata,
      },
      async () => key,
      async () => {},
    );
    const figure = /^\s*<figure\b[\s\S]*?<\/figure>/i.exec(fix.content)?.[0] ?? '';
    return {
      html: figure + out.content,
      edit: {
        title: out.title,
        metaDescription: out.seo?.metaDescription,
        slug: out.seo?.slug,
        focusKeyword: out.seo?.focusKeyword,
        seoTitle: out.seo?.seoTitle ?? '',
      },
    };
  }

  if (fix.kind === 'expand') {
    const shortfall = lengthShortfall(fix.quality);
    const wanted = wordsByLength[String(settings.contentLength)] ?? 1200;
    const missing = shortfall?.missing ? shortfall.missing : wanted / 2;
    const words = Math.max(150, Math.round(shortfall?.unit === 'characters' ? missing / CHARACTERS_PER_WORD : missing));
    const { value } = await chat(continuationPrompt(post, words, settings), words);
    return { html: insertContinuation(fix.content, htmlOf(value)), edit: null };
  }

  const section = fix.section!;
  const { value } = await chat(sectionFixPrompt(post, section, settings), SECTION_WORDS[section]);
  return { html: insertSection(fix.content, section, sectionHtml(value, section, String(settings.language ?? ''))), edit: null };
}

/** A model's Markdown without a fence around it. */
function markdownBody(answer: string): string {
  return answer
    .trim()
    .replace(/^```(?:markdown|md)?\s*\n([\s\S]*?)\n```$/i, '$1')
    .trim();
}

/** Markdown as our sanitized HTML (a title-like first heading stays a section heading). */
function htmlOf(markdown: string): string {
  // A leading "# " would be read as a title and dropped: it is a section of the post.
  return markdownToArticle(markdown.replace(/^#\s/, '## '), '').html;
}

/**
 * A section's HTML under a heading the sections check recognises: the model's own when it is
 * one, else the section's usual heading in the post's language; an introduction has none.
 */
function sectionHtml(markdown: string, section: AddableSection, language: string): string {
  const lead = /^#{1,3}\s+(.+?)\s*#*\s*(?:\n|$)/.exec(markdown);
  const body = lead ? markdown.slice(lead[0].length).trim() : markdown;
  if (section === 'intro') return htmlOf(body.replace(/^#{1,6}\s.*$/gm, '').trim());
  const pattern = sectionHeadingPattern(section)!;
  const heading = lead && pattern.test(lead[1]!) ? lead[1]! : fallbackHeading(section, language);
  return htmlOf(`## ${heading}\n\n${body}`);
}

/** The fix's end on success: the post's new text and report, the fix completed and its hold posted, together. */
async function book(job: { fixId: string; resultId: string; userId: string }, fixed: Fixed, db: Db): Promise<FixOutcome> {
  return transaction(db, async (tx) => {
    const [done] = await tx<{ id: string }[]>`
      UPDATE result_fixes SET status = 'completed', finished_at = now()
      WHERE id = ${job.fixId} AND user_id = ${job.userId} AND status = 'processing' RETURNING id`;
    if (!done) return 'skipped' as const;
    // The post as it was when the fix was asked for (locked till commit): an edit meanwhile wins.
    const [same] = await tx`
      SELECT 1 FROM generation_results r JOIN result_fixes f ON f.id = ${job.fixId}
      WHERE r.id = ${job.resultId} AND r.user_id = ${job.userId} AND r.status = 'completed' AND r.updated_at = f.base_updated_at
      FOR UPDATE OF r`;
    if (!same) throw new Changed();
    await settleHolds([fixHoldKey(job.resultId, job.fixId)], 'post', tx);
    // The edit path: sanitized again, counts and search text, and the quality report computed again.
    await updateResultContent(job.userId, job.resultId, fixed.html, fixed.edit, tx);
    await withdrawApproval(job.userId, job.resultId, tx);
    return 'completed' as const;
  });
}

/**
 * A fix whose row is gone (its post was deleted, and its fixes with it, before or while it ran):
 * its hold is given back, as a deleted generation item's is. Nothing to do when the row is there
 * (another delivery booked it).
 */
async function releaseIfGone(job: { fixId: string; resultId: string }, db: Db): Promise<'skipped'> {
  const [still] = await db`SELECT 1 FROM result_fixes WHERE id = ${job.fixId}`;
  if (still) return 'skipped';
  await settleHolds([fixHoldKey(job.resultId, job.fixId)], 'void', db).catch((err) => {
    // Released already (or never held): nothing more to give back.
    if (!(err instanceof LedgerError)) throw err;
  });
  return 'skipped';
}

/** The fix's end on failure: failed with its code, its hold voided, the post untouched. */
async function fail(job: { fixId: string; resultId: string; userId: string }, failure: Failure, db: Db): Promise<FixOutcome> {
  const ended = await failInTransaction(job, failure, db);
  return ended === 'skipped' ? releaseIfGone(job, db) : ended;
}

async function failInTransaction(job: { fixId: string; resultId: string; userId: string }, failure: Failure, db: Db): Promise<FixOutcome> {
  return transaction(db, async (tx) => {
    const [ended] = await tx<{ id: string }[]>`
      UPDATE result_fixes SET status = 'failed', error_code = ${failure.code},
        error_params = ${failure.params ? tx.json(failure.params) : null}, finished_at = now()
      WHERE id = ${job.fixId} AND user_id = ${job.userId} AND status = 'processing' RETURNING id`;
    if (!ended) return 'skipped' as const;
    await settleHolds([fixHoldKey(job.resultId, job.fixId)], 'void', tx);
    return 'failed' as const;
  });
}
