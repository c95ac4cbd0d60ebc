import { applyPlanEdit, parsePlanEdit, planSchema, PLAN_LIMITS, type Plan } from '~/utils/plan-schema';
import type { Translate } from '~/utils/auth-schemas';

// The run page's plan form as a plan: its fields read in order, the edit its button asks for
// (move, remove, add a section) applied, then checked by the same schema as the API's.

export type PlanFormOp = 'save' | 'write' | 'replan' | 'drop' | 'edit';

export type PlanForm = { resultId: string; op: PlanFormOp; plan: Plan | null; error: string | null };

const text = (v: FormDataEntryValue | null) => (typeof v === 'string' ? v : '');

export function readPlanForm(formData: FormData, t: Translate, newSection: string): PlanForm {
  const resultId = text(formData.get('resultId'));
  const button = text(formData.get('op'));
  if (button === 'replan' || button === 'drop') return { resultId, op: button, plan: null, error: null };
  const sections: { level: number; heading: string; intent: string }[] = [];
  for (let i = 0; i <= PLAN_LIMITS.sections; i++) {
    if (formData.get(`sections[${i}].heading`) === null) break;
    sections.push({
      level: Number(text(formData.get(`sections[${i}].level`))) || 2,
      heading: text(formData.get(`sections[${i}].heading`)),
      intent: text(formData.get(`sections[${i}].intent`)),
    });
  }
  const edit = parsePlanEdit(button);
  const edited = applyPlanEdit(sections, edit).map((s) =>
    s.heading.trim() === '' && edit.op === 'add' ? { ...s, heading: newSection } : s,
  );
  const parsed = planSchema(t).safeParse({
    title: text(formData.get('title')),
    metaDescription: text(formData.get('metaDescription')),
    sections: edited,
    faq: text(formData.get('faq'))
      .split('\n')
      .map((q) => q.trim())
      .filter(Boolean),
  });
  const op: PlanFormOp = button === 'write' ? 'write' : edit.op === 'save' ? 'save' : 'edit';
  if (!parsed.success) return { resultId, op, plan: null, error: parsed.error.issues[0]?.message ?? null };
  return { resultId, op, plan: parsed.data, error: null };
}
