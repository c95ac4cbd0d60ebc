import { z } from 'zod';
import type { Translate } from '~/utils/auth-schemas';
import { TEMPLATE_NAME_MAX, templateSettingsFor, templateTypes, type TemplateSettings, type TemplateType } from '~/utils/input-settings';

// /api/templates bodies (and the no-JavaScript template forms). The settings may come as
// `settings` or spread at the top level (both are sent); `settings` wins.

export const templateNameSchema = (t: Translate) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ required_error: t('templates.nameRequiredBody'), invalid_type_error: t('templates.nameRequiredBody') })
      .min(1, t('templates.nameRequiredBody'))
      .max(TEMPLATE_NAME_MAX, t('templates.nameTooLong', { max: TEMPLATE_NAME_MAX })),
  );

const typeSchema = (t: Translate) => z.enum(templateTypes, { errorMap: () => ({ message: t('templates.invalidType') }) });

function settingsOf(body: Record<string, unknown>): Record<string, unknown> {
  const nested =
    body.settings && typeof body.settings === 'object' && !Array.isArray(body.settings) ? (body.settings as Record<string, unknown>) : {};
  const { name: _n, type: _t, settings: _s, id: _i, ...top } = body;
  return { ...top, ...nested };
}

/** The settings of a type, strictly checked (a wrong value is an error), with the type's defaults filled in. */
export function checkSettings(
  t: Translate,
  type: TemplateType,
  values: Record<string, unknown>,
): { ok: true; settings: TemplateSettings } | { ok: false; error: z.ZodError } {
  const schemas = templateSettingsFor(type);
  const strict = schemas.strict.safeParse(values);
  if (!strict.success) {
    const issues = strict.error.issues.map((i) => ({
      ...i,
      path: ['settings', ...i.path],
      message: t('templates.invalidSetting', { field: String(i.path[0] ?? '') }),
    }));
    return { ok: false, error: new z.ZodError(issues) };
  }
  return { ok: true, settings: schemas.create.parse(strict.data) as TemplateSettings };
}

export function parseNewTemplate(t: Translate, body: Record<string, unknown>) {
  const head = z.object({ name: templateNameSchema(t), type: typeSchema(t) }).safeParse(body);
  if (!head.success) return { ok: false as const, error: head.error };
  const checked = checkSettings(t, head.data.type, settingsOf(body));
  if (!checked.ok) return checked;
  return { ok: true as const, template: { name: head.data.name, type: head.data.type, settings: checked.settings } };
}

/** A PUT body: the changed fields, merged over the template's current values. */
export function parseTemplatePatch(
  t: Translate,
  body: Record<string, unknown>,
  current: { type: TemplateType; settings: TemplateSettings },
) {
  const head = z.object({ name: templateNameSchema(t).optional(), type: typeSchema(t).optional() }).safeParse(body);
  if (!head.success) return { ok: false as const, error: head.error };
  const type = head.data.type ?? current.type;
  const changed = settingsOf(body);
  const base = type === current.type ? (current.settings as Record<string, unknown>) : {};
  const checked = checkSettings(t, type, { ...base, ...changed });
  if (!checked.ok) return checked;
  const settingsChanged = Object.keys(changed).length > 0 || type !== current.type;
  return {
    ok: true as const,
    patch: { name: head.data.name, type: head.data.type, settings: settingsChanged ? checked.settings : undefined },
  };
}
