import { z } from 'zod';

// A post's plan, as the planner proposes it and the owner edits it: the title, the outline (H2/H3
// headings, each with a line saying what it covers), the FAQ questions and the meta description.
// The same schema checks a plan from the model, from the run page's form and from the API.

export const PLAN_LIMITS = { title: 300, heading: 200, intent: 500, meta: 320, question: 300, sections: 20, faq: 10 } as const;

type Translate = (key: string, values?: Record<string, unknown>) => string;
const keysOnly: Translate = (key) => key;

export function planSectionSchema(t: Translate = keysOnly) {
  return z.object({
    level: z.coerce
      .number()
      .int()
      .refine((n) => n === 2 || n === 3, t('plans.validation.level'))
      .transform((n) => n as 2 | 3),
    heading: z
      .string({ required_error: t('plans.validation.heading') })
      .trim()
      .min(1, t('plans.validation.heading'))
      .max(PLAN_LIMITS.heading, t('plans.validation.tooLong')),
    intent: z.string().trim().max(PLAN_LIMITS.intent, t('plans.validation.tooLong')).default(''),
  });
}

/** PUT /api/results/{id}/plan and the run page's plan form (after its edits are applied). */
export function planSchema(t: Translate = keysOnly) {
  return z.object({
    title: z
      .string({ required_error: t('plans.validation.title') })
      .trim()
      .min(1, t('plans.validation.title'))
      .max(PLAN_LIMITS.title, t('plans.validation.tooLong')),
    metaDescription: z.string().trim().max(PLAN_LIMITS.meta, t('plans.validation.tooLong')).default(''),
    sections: z
      .array(planSectionSchema(t), { required_error: t('plans.validation.sections') })
      .min(1, t('plans.validation.sections'))
      .max(PLAN_LIMITS.sections, t('plans.validation.tooManySections', { max: PLAN_LIMITS.sections })),
    faq: z
      .array(z.string().trim().min(1).max(PLAN_LIMITS.question, t('plans.validation.tooLong')))
      .max(PLAN_LIMITS.faq, t('plans.validation.tooManyQuestions', { max: PLAN_LIMITS.faq }))
      .default([]),
  });
}

export type Plan = z.output<ReturnType<typeof planSchema>>;
export type PlanSection = Plan['sections'][number];

/** POST /api/jobs/{id}/write: the planned items to write (all of the run's when none is named). */
export function writePlansSchema() {
  return z.object({ resultIds: z.array(z.string().uuid()).max(1000).optional() });
}

/**
 * A model's answer as a plan: the JSON object in it (a fence or words around it are tolerated),
 * cut to the limits. Null when there is no usable plan (no title or no section).
 */
export function planFromAnswer(answer: string): Plan | null {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(answer.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const text = (v: unknown, max: number) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim().slice(0, max) : '');
  const sections = (Array.isArray(o.sections) ? o.sections : [])
    .map((s: unknown) => {
      const x = (s && typeof s === 'object' ? s : {}) as Record<string, unknown>;
      return {
        level: (Number(x.level) === 3 ? 3 : 2) as 2 | 3,
        heading: text(x.heading, PLAN_LIMITS.heading),
        intent: text(x.intent, PLAN_LIMITS.intent),
      };
    })
    .filter((s) => s.heading !== '')
    .slice(0, PLAN_LIMITS.sections);
  const faq = (Array.isArray(o.faq) ? o.faq : [])
    .map((q: unknown) => text(q, PLAN_LIMITS.question))
    .filter(Boolean)
    .slice(0, PLAN_LIMITS.faq);
  const title = text(o.title, PLAN_LIMITS.title);
  if (!title || sections.length === 0) return null;
  // An outline cannot open with a subsection.
  if (sections[0]!.level === 3) sections[0]!.level = 2;
  return { title, metaDescription: text(o.metaDescription, PLAN_LIMITS.meta), sections, faq };
}

/**
 * The words each part of the post is asked for: the requested length shared evenly between the
 * sections and the FAQ (one part for all its answers), so the post lands near the length asked.
 */
export function wordsPerPart(totalWords: number, sections: number, faqQuestions: number): { section: number; faq: number } {
  const parts = sections + (faqQuestions > 0 ? 1 : 0);
  const each = Math.max(30, Math.round(totalWords / Math.max(1, parts)));
  return { section: each, faq: faqQuestions > 0 ? each : 0 };
}

/** An edit of the run page's plan form, applied to the sections it posted (JS on or off). */
export type PlanEdit = { op: 'up' | 'down' | 'remove'; index: number } | { op: 'add' } | { op: 'save' };

export function parsePlanEdit(value: unknown): PlanEdit {
  const m = typeof value === 'string' ? value.match(/^(up|down|remove):(\d{1,2})$/) : null;
  if (m) return { op: m[1] as 'up' | 'down' | 'remove', index: Number(m[2]) };
  return value === 'add' ? { op: 'add' } : { op: 'save' };
}

/** The sections after an edit: moved, removed or one more (an empty H2 to fill in). */
export function applyPlanEdit<S extends { level: number; heading: string; intent: string }>(sections: S[], edit: PlanEdit): S[] {
  const list = [...sections];
  if (edit.op === 'add') return [...list, { level: 2, heading: '', intent: '' } as S];
  if (edit.op === 'save' || edit.index >= list.length) return list;
  const i = edit.index;
  if (edit.op === 'remove') list.splice(i, 1);
  else {
    const j = edit.op === 'up' ? i - 1 : i + 1;
    if (j < 0 || j >= list.length) return list;
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}
