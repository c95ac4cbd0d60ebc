import { sql, transaction, type Db } from '../../db/client';
import { MAX_TEMPLATES_PER_USER } from '~/catalogue';
import { templateSettingsFor, type TemplateSettings, type TemplateType } from '~/utils/input-settings';

// Saved templates, behind /api/templates and the templates dialog. Every row belongs to one user: another user's id is "not found".

export type Template = { id: string; name: string; type: TemplateType; settings: TemplateSettings; createdAt: string; updatedAt: string };

type Row = { id: string; name: string; type: TemplateType; settings: unknown; createdAt: Date; updatedAt: Date };

function toTemplate(row: Row): Template {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    // Stored settings are read leniently: a value that no longer fits takes its default.
    settings: templateSettingsFor(row.type).stored.parse(row.settings ?? {}) as TemplateSettings,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export async function listTemplates(userId: string, type: TemplateType | null = null, db: Db = sql): Promise<Template[]> {
  const rows = await db<Row[]>`
    SELECT id, name, type, settings, created_at AS "createdAt", updated_at AS "updatedAt"
    FROM templates WHERE user_id = ${userId} ${type ? db`AND type = ${type}` : db``}
    ORDER BY created_at DESC, id`;
  return rows.map(toTemplate);
}

export async function getTemplate(userId: string, id: string, db: Db = sql): Promise<Template | null> {
  if (!isUuid(id)) return null;
  const [row] = await db<Row[]>`
    SELECT id, name, type, settings, created_at AS "createdAt", updated_at AS "updatedAt"
    FROM templates WHERE id = ${id} AND user_id = ${userId}`;
  return row ? toTemplate(row) : null;
}

export type NewTemplate = { name: string; type: TemplateType; settings: TemplateSettings };
export type CreateResult = { ok: true; template: Template } | { ok: false; reason: 'limit' };

/** Creates a template (settings already validated and completed); at most MAX_TEMPLATES_PER_USER per user. */
export async function createTemplate(userId: string, input: NewTemplate, db: Db = sql): Promise<CreateResult> {
  return transaction(db, async (tx) => {
    // One creator at a time per user, so two concurrent saves cannot both pass the count.
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`templates:${userId}`}, 0))`;
    const [counted] = await tx<{ count: number }[]>`SELECT count(*)::int AS count FROM templates WHERE user_id = ${userId}`;
    if ((counted?.count ?? 0) >= MAX_TEMPLATES_PER_USER) return { ok: false, reason: 'limit' } as const;
    const [row] = await tx<Row[]>`
      INSERT INTO templates (user_id, name, type, settings)
      VALUES (${userId}, ${input.name.trim()}, ${input.type}, ${tx.json(input.settings as never)})
      RETURNING id, name, type, settings, created_at AS "createdAt", updated_at AS "updatedAt"`;
    return { ok: true, template: toTemplate(row!) } as const;
  });
}

export type TemplatePatch = { name?: string; type?: TemplateType; settings?: TemplateSettings };

/** Applies the changed fields; null when the template is not the user's. */
export async function updateTemplate(userId: string, id: string, patch: TemplatePatch, db: Db = sql): Promise<Template | null> {
  if (!isUuid(id)) return null;
  const [row] = await db<Row[]>`
    UPDATE templates SET
      name = coalesce(${patch.name?.trim() ?? null}, name),
      type = coalesce(${patch.type ?? null}, type),
      settings = coalesce(${patch.settings ? db.json(patch.settings as never) : null}::jsonb, settings),
      updated_at = now()
    WHERE id = ${id} AND user_id = ${userId}
    RETURNING id, name, type, settings, created_at AS "createdAt", updated_at AS "updatedAt"`;
  return row ? toTemplate(row) : null;
}

export async function deleteTemplate(userId: string, id: string, db: Db = sql): Promise<boolean> {
  if (!isUuid(id)) return false;
  const result = await db`DELETE FROM templates WHERE id = ${id} AND user_id = ${userId}`;
  return result.count > 0;
}
