import { sql, transaction, type Db } from '../../db/client';
import { maskedApiKeys, saveApiKeys, type ApiKeyField } from './api-keys.server';
import { appSettings, lastUsed, type AppSettings, type LastUsed } from '~/utils/input-settings';
import { memoPerRequest } from '~/runtime/request-scope.server';
import { getUserTimeZone, saveUserTimeZone } from './user-time-zone.server';

// Application settings and User settings (last-used values). Values arrive validated by the
// strict schemas; reads complete them with the defaults (and drop values that no longer fit).

export async function getSettings(userId: string, db: Db = sql): Promise<AppSettings> {
  // A page read (the root's theme for a browser without the cookie, the workspace's input tools)
  // asks for them more than once: one query and one parse per request. Callers never mutate them.
  if (db === sql) return memoPerRequest(`settings:${userId}`, async () => appSettings.read((await pageRow(userId))?.settings ?? {}));
  const [row] = await db<{ settings: unknown }[]>`SELECT settings FROM user_settings WHERE user_id = ${userId}`;
  return appSettings.stored.parse(row?.settings ?? {});
}

/**
 * The account's settings row, both its parts, read once per page request: the workspace asks for
 * the settings and the last-used values together (one query, not two).
 */
function pageRow(userId: string): Promise<{ settings: unknown; lastUsed: unknown } | undefined> {
  return memoPerRequest(`settings-row:${userId}`, async () => {
    const [row] = await sql<{ settings: unknown; lastUsed: unknown }[]>`
      SELECT settings, last_used AS "lastUsed" FROM user_settings WHERE user_id = ${userId}`;
    return row;
  });
}

/** Merges the given settings into the saved ones and returns the result. */
export async function saveSettings(userId: string, values: Partial<AppSettings>, db: Db = sql): Promise<AppSettings> {
  const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const [row] = await db<{ settings: unknown }[]>`
    INSERT INTO user_settings (user_id, settings) VALUES (${userId}, ${db.json(clean as never)})
    ON CONFLICT (user_id) DO UPDATE SET settings = user_settings.settings || EXCLUDED.settings, updated_at = now()
    RETURNING settings`;
  return appSettings.stored.parse(row!.settings);
}

export async function getLastUsed(userId: string, db: Db = sql): Promise<LastUsed> {
  if (db === sql) return lastUsed.read((await pageRow(userId))?.lastUsed ?? {});
  const [row] = await db<{ lastUsed: unknown }[]>`SELECT last_used AS "lastUsed" FROM user_settings WHERE user_id = ${userId}`;
  return lastUsed.stored.parse(row?.lastUsed ?? {});
}

/**
 * Saves the last-used values of a run (PATCH /api/user/settings). The generation start calls
 * it inside its own transaction; an image-provider key given with them is sealed, never kept here.
 * Values that do not validate are left out (this save never fails a run).
 */
export async function saveLastUsed(userId: string, values: Record<string, unknown>, db: Db = sql): Promise<LastUsed> {
  const parsed = lastUsed.strict.safeParse(values);
  const valid: Record<string, unknown> = {};
  if (parsed.success) Object.assign(valid, parsed.data);
  else {
    // Keep each field that is valid on its own.
    for (const [key, value] of Object.entries(values)) {
      const one = lastUsed.strict.safeParse({ [key]: value });
      if (one.success && key in one.data) Object.assign(valid, one.data);
    }
  }
  const { replicateApiKey, ...rest } = valid as { replicateApiKey?: string } & Record<string, unknown>;
  if (replicateApiKey?.trim()) await saveApiKeys(userId, { replicateApiKey }, db);
  const clean = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const [row] = await db<{ lastUsed: unknown }[]>`
    INSERT INTO user_settings (user_id, last_used) VALUES (${userId}, ${db.json(clean as never)})
    ON CONFLICT (user_id) DO UPDATE SET last_used = user_settings.last_used || EXCLUDED.last_used, updated_at = now()
    RETURNING last_used AS "lastUsed"`;
  return lastUsed.stored.parse(row!.lastUsed);
}

/**
 * The settings form's save (dialog and POST /api/settings): values, provider keys and the time zone
 * (a name settableTimeZone accepted), all or nothing.
 */
export async function saveSettingsAndKeys(
  userId: string,
  values: Partial<AppSettings> & Partial<Record<ApiKeyField, string | null>> & { timeZone?: string },
  db: Db = sql,
): Promise<AppSettings> {
  const { openRouterApiKey, replicateApiKey, timeZone, ...settings } = values;
  return transaction(db, async (tx) => {
    await saveApiKeys(userId, { openRouterApiKey, replicateApiKey }, tx);
    if (timeZone) await saveUserTimeZone(userId, timeZone, tx);
    return saveSettings(userId, settings, tx);
  });
}

/** Settings, keys (masked) and the time zone (null until known), as GET /api/settings and the settings dialog show them. */
export async function settingsView(userId: string, db: Db = sql) {
  const [settings, keys, timeZone] = await Promise.all([getSettings(userId, db), maskedApiKeys(userId, db), getUserTimeZone(userId, db)]);
  return { ...settings, ...keys, timeZone };
}
export type SettingsView = Awaited<ReturnType<typeof settingsView>>;
