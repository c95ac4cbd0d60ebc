import crypto from 'node:crypto';
import { env } from '~/runtime/env.server';

// The one module that seals secrets at rest (users' provider keys, WordPress application
// passwords) with ENCRYPTION_KEY: AES-256-GCM, a fresh 96-bit nonce per value, and a context label
// bound in as associated data so a sealed value cannot be moved to another column or owner.
const VERSION = 'v1';

function key(): Buffer {
  return Buffer.from(env.ENCRYPTION_KEY, 'base64');
}

/** Seals plaintext for storage; `context` (e.g. `api-key:openrouter:{userId}`) must match on open. */
export function seal(plaintext: string, context: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key(), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
}

/** Opens a sealed value; throws when it was tampered with, sealed for another context or key. */
export function open(sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('Unknown sealed value format');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/** What a user may see of a stored secret: its last four characters. */
export function mask(secret: string): string {
  return secret.length <= 4 ? '••••' : `••••${secret.slice(-4)}`;
}
