import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configWarnings, loadEnv as loadProcessEnv, resetEnv } from '../../app/runtime/env.server';
import { openDatabase } from '../../db/open';

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
    ['ENCRYPTION_KEY', Buffer.alloc(32, 0).toString('base64')],
    ['DATABASE_POOL_MAX', 'ten'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_POOL_MAX', '2.5'],
    ['JOBS_POOL_MAX', 'many'],
    ['JOBS_POOL_MAX', '-1'],
    ['EMBEDDED_PG_PORT', 'postgres'],
    ['EMBEDDED_PG_PORT', '70000'],
    ['LEDGER_HOLD_MAX_AGE_SECONDS', 'an hour'],
    ['LEDGER_HOLD_MAX_AGE_SECONDS', '59'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '300.1.1.1'],
    ['TRUST_PROXY', '10.0.0.1, proxy.example.com'],
    ['TRUST_PROXY', '1.5'],
  ])('names %s when its value (%s) is invalid', (name, value) => {
    expect(configError({ DATA_DIR: dataDir, [name]: value })).toContain(name);
  });

  it('requires SESSION_SECRET and ENCRYPTION_KEY in production, naming the missing one', () => {
    expect(configError({ NODE_ENV: 'production', DATA_DIR: dataDir, ENCRYPTION_KEY: KEY })).toMatch(
      /SESSION_SECRET.*required in production/,
    );
    expect(configError({ NODE_ENV: 'production', DATA_DIR: dataDir, SESSION_SECRET: SECRET })).toMatch(
      /ENCRYPTION_KEY.*required in production/,
    );
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

  it('names every invalid variable at once', () => {
    const message = configError({ DATA_DIR: dataDir, DATABASE_POOL_MAX: 'lots', TRUST_PROXY: 'maybe', PORT: '3000' });
    expect(message).toMatch(/DATABASE_POOL_MAX/);
    expect(message).toMatch(/TRUST_PROXY/);
    expect(message).not.toMatch(/PORT:/);
  });

  it('reads pool sizes, the embedded port and the hold lifetime as numbers, with defaults', () => {
    const defaults = loadEnv({ DATA_DIR: dataDir });
    expect(defaults).toMatchObject({ DATABASE_POOL_MAX: 10, JOBS_POOL_MAX: 5, EMBEDDED_PG_PORT: 5433, LEDGER_HOLD_MAX_AGE_SECONDS: 3600 });
    expect(defaults.TRUST_PROXY).toBeUndefined();
    const env = loadEnv({
      DATA_DIR: dataDir,
      DATABASE_POOL_MAX: '20',
      JOBS_POOL_MAX: '3',
      EMBEDDED_PG_PORT: '6543',
      LEDGER_HOLD_MAX_AGE_SECONDS: '7200',
    });
    expect(env).toMatchObject({ DATABASE_POOL_MAX: 20, JOBS_POOL_MAX: 3, EMBEDDED_PG_PORT: 6543, LEDGER_HOLD_MAX_AGE_SECONDS: 7200 });
  });

  it('reads TRUST_PROXY as a hop count, addresses/subnets, or true with a warning', () => {
    const trust = (v: string) => loadEnv({ DATA_DIR: dataDir, TRUST_PROXY: v }).TRUST_PROXY;
    expect(trust('1')).toBe(1);
    expect(trust('false')).toBe(false);
    expect(trust('10.0.0.0/8, 192.168.1.7,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
    expect(trust('loopback, uniquelocal')).toEqual(['loopback', 'uniquelocal']);
    expect(trust('10.0.0.0/255.0.0.0')).toEqual(['10.0.0.0/255.0.0.0']);
    expect(configWarnings(loadEnv({ DATA_DIR: dataDir, TRUST_PROXY: '1' }))).toEqual([]);
    expect(trust('true')).toBe(true);
    expect(configWarnings(loadEnv({ DATA_DIR: dataDir, TRUST_PROXY: 'true' }))).toEqual([
      expect.stringMatching(/TRUST_PROXY=true.*hop count/),
    ]);
  });

  it('reads the S3 settings: none set means Postgres; a partial set names what is missing', () => {
    const none = loadEnv({ DATA_DIR: dataDir });
    expect(none.S3_BUCKET).toBeUndefined();
    expect(none.S3_REGION).toBe('us-east-1');
    const s3 = loadEnv({
      DATA_DIR: dataDir,
      S3_BUCKET: 'images',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'false',
    });
    expect(s3).toMatchObject({
      S3_BUCKET: 'images',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-central-1',
      S3_FORCE_PATH_STYLE: 'false',
    });
    expect(configError({ DATA_DIR: dataDir, S3_ENDPOINT: 'http://127.0.0.1:9000' })).toMatch(/S3_BUCKET is required when S3_ENDPOINT/);
    expect(configError({ DATA_DIR: dataDir, S3_BUCKET: 'images', S3_ACCESS_KEY_ID: 'id' })).toMatch(/S3_SECRET_ACCESS_KEY is required/);
    expect(configError({ DATA_DIR: dataDir, S3_BUCKET: 'images', S3_ENDPOINT: 'not a url' })).toMatch(/S3_ENDPOINT/);
    expect(configError({ DATA_DIR: dataDir, IMAGE_STORAGE: 's3' })).toMatch(/S3_BUCKET is required when IMAGE_STORAGE=s3/);
    expect(loadEnv({ DATA_DIR: dataDir, S3_BUCKET: 'images', IMAGE_STORAGE: 'postgres' }).IMAGE_STORAGE).toBe('postgres');
  });

  it('opening the database goes through the contract: a bad EMBEDDED_PG_PORT stops it naming the variable', async () => {
    const saved = { DATABASE_URL: process.env.DATABASE_URL, EMBEDDED_PG_PORT: process.env.EMBEDDED_PG_PORT };
    delete process.env.DATABASE_URL;
    process.env.EMBEDDED_PG_PORT = 'not-a-port';
    resetEnv();
    try {
      await expect(openDatabase()).rejects.toThrow(/EMBEDDED_PG_PORT/);
      await expect(openDatabase()).rejects.toBeInstanceOf(ConfigError);
    } finally {
      process.env.DATABASE_URL = saved.DATABASE_URL;
      if (saved.EMBEDDED_PG_PORT === undefined) delete process.env.EMBEDDED_PG_PORT;
      else process.env.EMBEDDED_PG_PORT = saved.EMBEDDED_PG_PORT;
      resetEnv();
    }
  });
});
