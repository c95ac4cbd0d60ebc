import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadEnv as loadProcessEnv } from '../../app/utils/env.server';

// loadEnv(source) with a source other than process.env validates that object only: it neither
// reads nor completes process.env, so these cases cannot leak into the rest of the run.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-env-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

// A plain object stands in for the environment.
const loadEnv = (source: Record<string, string>) => loadProcessEnv(source as NodeJS.ProcessEnv);

const KEY = Buffer.alloc(32, 1).toString('base64');
const SECRET = 'a-production-session-secret-0123';

function configError(source: Record<string, string>): string {
  try {
    loadEnv(source);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('fills the contract defaults', () => {
    const env = loadEnv({ DATA_DIR: dataDir });
    expect(env.NODE_ENV).toBe('development');
    expect(env.PORT).toBe(3000);
    expect(env.APP_URL).toBe('http://localhost:3000');
    expect(env.ROLE).toBe('all');
    expect(env.LOG_LEVEL).toBe('info');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.MAIL_FROM).toMatch(/@/);
    expect(env.OPENROUTER_BASE_URL).toBe('https://openrouter.ai/api/v1');
    expect(env.REPLICATE_BASE_URL).toBe('https://api.replicate.com/v1');
    expect(env.ALLOW_PRIVATE_HOSTS).toBe(false);
    expect(env.RATE_LIMIT_MULTIPLIER).toBe(1);
  });

  it('derives APP_URL from PORT and trims a trailing slash', () => {
    expect(loadEnv({ DATA_DIR: dataDir, PORT: '4123' }).APP_URL).toBe('http://localhost:4123');
    expect(loadEnv({ DATA_DIR: dataDir, APP_URL: 'https://postforge.example/' }).APP_URL).toBe('https://postforge.example');
  });

  it('treats empty values as unset', () => {
    const env = loadEnv({ DATA_DIR: dataDir, PORT: '', ROLE: '', SMTP_URL: '' });
    expect(env.PORT).toBe(3000);
    expect(env.ROLE).toBe('all');
    expect(env.SMTP_URL).toBeUndefined();
  });

  it('reads booleans and numbers', () => {
    const env = loadEnv({ DATA_DIR: dataDir, ALLOW_PRIVATE_HOSTS: 'true', RATE_LIMIT_MULTIPLIER: '50', ROLE: 'worker' });
    expect(env.ALLOW_PRIVATE_HOSTS).toBe(true);
    expect(env.RATE_LIMIT_MULTIPLIER).toBe(50);
    expect(env.ROLE).toBe('worker');
  });

  it.each([
    ['PORT', 'not-a-port'],
    ['PORT', '70000'],
    ['ROLE', 'scheduler'],
    ['APP_URL', 'localhost without scheme'],
    ['LOG_LEVEL', 'loud'],
    ['ALLOW_PRIVATE_HOSTS', 'yes'],
    ['ENCRYPTION_KEY', Buffer.alloc(16, 1).toString('base64')],
    ['SESSION_SECRET', 'short'],
    ['RATE_LIMIT_MULTIPLIER', '0'],
    ['OPENROUTER_BASE_URL', 'nope'],
  ])('names %s when its value (%s) is invalid', (name, value) => {
    expect(configError({ DATA_DIR: dataDir, [name]: value })).toContain(name);
  });

  it('requires SESSION_SECRET and ENCRYPTION_KEY in production, naming the missing one', () => {
    expect(configError({ NODE_ENV: 'production', DATA_DIR: dataDir, ENCRYPTION_KEY: KEY })).toMatch(/SESSION_SECRET.*required in production/);
    expect(configError({ NODE_ENV: 'production', DATA_DIR: dataDir, SESSION_SECRET: SECRET })).toMatch(/ENCRYPTION_KEY.*required in production/);
    const env = loadEnv({ NODE_ENV: 'production', DATA_DIR: dataDir, SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY });
    expect(env.SESSION_SECRET).toBe(SECRET);
    expect(env.ENCRYPTION_KEY).toBe(KEY);
  });

  it('generates development secrets once into DATA_DIR and reuses them', () => {
    const dir = path.join(dataDir, 'fresh');
    const first = loadEnv({ DATA_DIR: dir });
    expect(first.SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(first.ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(fs.readFileSync(path.join(dir, 'session-secret'), 'utf8').trim()).toBe(first.SESSION_SECRET);
    expect(fs.statSync(path.join(dir, 'encryption-key')).mode & 0o777).toBe(0o600);
    const second = loadEnv({ DATA_DIR: dir });
    expect(second.SESSION_SECRET).toBe(first.SESSION_SECRET);
    expect(second.ENCRYPTION_KEY).toBe(first.ENCRYPTION_KEY);
  });

  it('leaves process.env alone when given another source', () => {
    const before = { ...process.env };
    loadEnv({ DATA_DIR: path.join(dataDir, 'isolated'), PORT: '4555' });
    expect(process.env).toEqual(before);
  });
});
