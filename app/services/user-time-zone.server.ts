import { sql, type Db } from '../../db/client';

// The user's time zone (users.time_zone), an IANA name checked by the caller (settableTimeZone).

/** The user's zone, or null when none is known yet. */
export async function getUserTimeZone(userId: string, db: Db = sql): Promise<string | null> {
  const [row] = await db<{ timeZone: string | null }[]>`SELECT time_zone AS "timeZone" FROM users WHERE id = ${userId}`;
  return row?.timeZone ?? null;
}

/** The user's choice (the settings). */
export async function saveUserTimeZone(userId: string, timeZone: string, db: Db = sql): Promise<void> {
  await db`UPDATE users SET time_zone = ${timeZone}, updated_at = now() WHERE id = ${userId} AND time_zone IS DISTINCT FROM ${timeZone}`;
}

/**
 * The browser's zone for a user who has none yet; a zone already there (their choice, or an earlier
 * browser's) stays. Returns the zone the user has afterwards.
 */
export async function defaultUserTimeZone(userId: string, timeZone: string, db: Db = sql): Promise<string> {
  const [row] = await db<{ timeZone: string }[]>`
    UPDATE users SET time_zone = COALESCE(time_zone, ${timeZone}), updated_at = now() WHERE id = ${userId} AND time_zone IS NULL
    RETURNING time_zone AS "timeZone"`;
  return row?.timeZone ?? (await getUserTimeZone(userId, db)) ?? timeZone;
}
