import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { TestClient } from './app-server';

/** A fresh user (free unless told otherwise). */
export async function makeUser(label: string, status: 'free' | 'pro' | 'canceled' = 'free'): Promise<{ id: string; email: string }> {
  const email = `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const [u] = await sql<
    { id: string }[]
  >`INSERT INTO users (email, name, subscription_status) VALUES (${email}, ${`User ${label}`}, ${status}) RETURNING id`;
  return { id: u!.id, email };
}

/** A TestClient signed in as the user (a session row inserted directly). */
export async function signedInClient(baseUrl: string, userId: string): Promise<TestClient> {
  const client = new TestClient(baseUrl);
  const { setCookie } = await createSession(userId);
  const pair = setCookie.split(';')[0]!;
  const eq = pair.indexOf('=');
  client.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  return client;
}

/** POSTs a file as multipart/form-data under the field `file`. */
export function uploadFile(
  client: TestClient,
  path: string,
  bytes: Uint8Array | string,
  name = 'topics.csv',
  type = 'text/csv',
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  form.set('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)], { type }), name);
  return client.request(path, { method: 'POST', body: form, headers });
}
