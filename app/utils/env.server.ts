import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

// The configuration contract of ARCHITECTURE.md. Parsed once per process (both module graphs share
// it through process.env, which loadEnv() completes with generated development secrets).
const boolish = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  APP_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  SESSION_SECRET: z.string().min(16, 'SESSION_SECRET must be at least 16 characters').optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'ENCRYPTION_KEY must be 32 bytes, base64-encoded')
    .optional(),
  ROLE: z.enum(['all', 'web', 'worker']).default('all'),
  SMTP_URL: z.string().min(1).optional(),
  MAIL_FROM: z.string().min(3).default('Postforge <no-reply@postforge.local>'),
  OPENROUTER_API_KEY: z.string().optional(),
  OPENROUTER_BASE_URL: z.string().url().default('https://openrouter.ai/api/v1'),
  REPLICATE_API_TOKEN: z.string().optional(),
  REPLICATE_BASE_URL: z.string().url().default('https://api.replicate.com/v1'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_API_BASE: z.string().url().optional(),
  STRIPE_PRICE_PRO: z.string().optional(),
  STRIPE_PRICE_TOPUP_100: z.string().optional(),
  STRIPE_PRICE_TOPUP_360: z.string().optional(),
  STRIPE_PRICE_TOPUP_1170: z.string().optional(),
  ALLOW_PRIVATE_HOSTS: boolish,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Abuse limits can be raised for load tests; never disabled.
  RATE_LIMIT_MULTIPLIER: z.coerce.number().min(1).default(1),
  // Credit holds older than this are voided by the sweeper (and flagged by `ledger verify`).
  LEDGER_HOLD_MAX_AGE_SECONDS: z.coerce.number().int().min(60).default(3600),
  // Bulk generation (issue 7): items in flight per worker process, per user across all processes,
  // topics per run, and the provider call's timeout, attempts and the worker's lease on an item.
  GENERATION_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  GENERATION_CONCURRENCY_PER_USER: z.coerce.number().int().min(1).max(500).default(10),
  MAX_TOPICS_PER_RUN: z.coerce.number().int().min(1).max(10_000).default(1000),
  GENERATION_PROVIDER_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(900).default(120),
  GENERATION_PROVIDER_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  GENERATION_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
});

export type Env = z.infer<typeof schema> & {
  APP_URL: string;
  SESSION_SECRET: string;
  ENCRYPTION_KEY: string;
};

export class ConfigError extends Error {}

const globalEnv = globalThis as unknown as { __postforgeEnv?: Env };

/** Reads, validates and completes the environment once; throws ConfigError naming the variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  if (globalEnv.__postforgeEnv && source === process.env) return globalEnv.__postforgeEnv;
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  for (const name of ['SESSION_SECRET', 'ENCRYPTION_KEY'] as const) {
    if (!env[name] && production) {
      throw new ConfigError(`Missing configuration: ${name} is required in production`);
    }
  }
  const full: Env = {
    ...env,
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    SESSION_SECRET: env.SESSION_SECRET ?? devSecret(env.DATA_DIR, 'session-secret', () => crypto.randomBytes(32).toString('hex')),
    ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? devSecret(env.DATA_DIR, 'encryption-key', () => crypto.randomBytes(32).toString('base64')),
  };
  if (source === process.env) {
    // Share generated secrets with the Remix build's module graph.
    process.env.SESSION_SECRET = full.SESSION_SECRET;
    process.env.ENCRYPTION_KEY = full.ENCRYPTION_KEY;
    globalEnv.__postforgeEnv = full;
  }
  return full;
}

/** Development secrets are generated once and kept in DATA_DIR so sessions survive restarts. */
function devSecret(dataDir: string, name: string, make: () => string): string {
  const file = path.resolve(dataDir, name);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const value = make();
    fs.writeFileSync(file, value, { mode: 0o600 });
    return value;
  }
}

export const env = new Proxy({} as Env, { get: (_t, key: string) => loadEnv()[key as keyof Env] });
