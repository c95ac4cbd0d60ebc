import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { dropSingleton, singleton } from './singleton.server';

// The configuration contract of ARCHITECTURE.md. Parsed once per process (both module graphs share
// it through process.env, which loadEnv() completes with generated development secrets).
const boolish = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

// An integer setting: "abc" or "1.5" fails naming the variable instead of becoming NaN.
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

// Express's named ranges for `trust proxy` besides addresses and subnets.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  // A prefix length, or (IPv4) a netmask such as 255.255.255.0.
  if (/^\d{1,3}$/.test(bits)) return Number(bits) <= (family === 4 ? 32 : 128);
  return family === 4 && net.isIPv4(bits);
}

/**
 * Express `trust proxy`: a hop count (what a single load balancer needs), addresses/subnets
 * (comma-separated, or Express's loopback/linklocal/uniquelocal), or `true` (trust every hop:
 * only behind a proxy that overwrites X-Forwarded-For; configWarnings() says so). `false` = unset.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): number | boolean | string[] => {
    if (v === 'true') return true;
    if (v === 'false') return false;
    if (/^\d+$/.test(v)) return Number(v);
    const entries = v.split(',').map((e) => e.trim());
    if (entries.every((e) => e && isAddressOrSubnet(e))) return entries;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a hop count, addresses/subnets (comma-separated) or true' });
    return z.NEVER;
  })
  .optional();

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(0, 65535).default(3000),
  APP_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  // Connections of the web pool (HTTP requests: `sql`) and of the job workers' pool (`jobSql`).
  DATABASE_POOL_MAX: int(1, 1000).default(10),
  JOBS_POOL_MAX: int(1, 1000).default(5),
  DATA_DIR: z.string().min(1).default('./.data'),
  EMBEDDED_PG_PORT: int(1, 65535).default(5433),
  TRUST_PROXY: trustProxy,
  SESSION_SECRET: z.string().min(16, 'SESSION_SECRET must be at least 16 characters').optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'ENCRYPTION_KEY must be 32 bytes, base64-encoded')
    .refine((v) => Buffer.from(v, 'base64').some((b) => b !== 0), 'ENCRYPTION_KEY must not be all zero bytes')
    .optional(),
  ROLE: z.enum(['all', 'web', 'worker']).default('all'),
  SMTP_URL: z.string().min(1).optional(),
  MAIL_FROM: z.string().min(3).default('Postforge <no-reply@postforge.local>'),
  // Shown on the contact, terms and privacy pages; unset: derived from MAIL_FROM (see contactEmail()).
  CONTACT_EMAIL: z.string().email().optional(),
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
  // Images in S3-compatible object storage (any of these set: S3_BUCKET too); unset: in Postgres.
  // No keys: the SDK's own chain (instance role, AWS_* variables). Path-style addressing
  // (endpoint/bucket/key) is what most non-AWS servers want: the default when S3_ENDPOINT is set.
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false', '1', '0']).optional(),
  // Where NEW images go: `s3` (the default with S3_BUCKET) or `postgres`. With `postgres` and the
  // bucket still set, images already in the bucket are served while `npm run images -- to-db` runs.
  IMAGE_STORAGE: z.enum(['postgres', 's3']).optional(),
  ALLOW_PRIVATE_HOSTS: boolish,
  // Publish-now: how long POST /api/wordpress/publish and the publish page wait for the
  // site before answering "it will finish in the background" (0: never wait).
  WORDPRESS_PUBLISH_WAIT_SECONDS: int(0, 120).default(20),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Abuse limits can be raised for load tests; never disabled.
  RATE_LIMIT_MULTIPLIER: z.coerce.number().min(1).default(1),
  // A credit hold's lifetime when its owner sets no expiry of its own (ledger reserve).
  LEDGER_HOLD_MAX_AGE_SECONDS: int(60).default(3600),
  // Who `npm run ledger -- adjust` books as the actor (default: the OS user).
  LEDGER_ACTOR: z.string().min(1).optional(),
  // Bulk generation: items in flight per worker process, per user across all processes,
  // topics per run, and the provider call's timeout, attempts and the worker's lease on an item.
  GENERATION_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  GENERATION_CONCURRENCY_PER_USER: z.coerce.number().int().min(1).max(500).default(10),
  MAX_TOPICS_PER_RUN: z.coerce.number().int().min(1).max(10_000).default(1000),
  // Benchmarks only: completed posts get no quality report, so a run can be timed with and without it.
  QUALITY_REPORTS_OFF: boolish,
  GENERATION_PROVIDER_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(900).default(120),
  GENERATION_PROVIDER_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  GENERATION_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
  // Outgoing webhooks: the first retry's delay (each next one doubles, at most 6 hours)
  // and how long an event is retried before its delivery ends failed.
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().min(0.01).max(168).default(24),
  // The web process's request line (server.ts takeTurns): requests waiting for a turn into Remix
  // beyond this many, or longer than this, are answered 503 with Retry-After (overload says so).
  REQUEST_QUEUE_MAX: int(0, 100_000).default(200),
  REQUEST_QUEUE_WAIT_SECONDS: int(1, 600).default(10),
  // Internal links: how many of a site's published posts are read as link targets.
  LINK_SOURCE_MAX_POSTS: int(1, 10_000).default(500),
  // Research for plans (optional): a SearXNG instance's base URL, or a Brave Search API key (with its
  // base URL, for tests); SearXNG wins when both are set. How many top results a plan reads.
  SEARXNG_URL: z.string().url().optional(),
  BRAVE_SEARCH_API_KEY: z.string().optional(),
  BRAVE_SEARCH_BASE_URL: z.string().url().default('https://api.search.brave.com/res/v1'),
  RESEARCH_RESULTS: int(1, 10).default(3),
});

export type Env = z.infer<typeof schema> & {
  APP_URL: string;
  SESSION_SECRET: string;
  ENCRYPTION_KEY: string;
};

export class ConfigError extends Error {}

/** Reads, validates and completes the environment once; throws ConfigError naming the variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  if (source === process.env) return singleton('env', () => parseEnv(source));
  return parseEnv(source);
}

/** Forgets the process's parsed environment (tests that change process.env). */
export function resetEnv(): void {
  dropSingleton('env');
}

/** Settings that work but deserve a word at start-up (server.ts logs them). */
export function configWarnings(env: Env): string[] {
  const warnings: string[] = [];
  if (env.TRUST_PROXY === true) {
    warnings.push(
      'TRUST_PROXY=true trusts every X-Forwarded-For hop, so clients can pick the address the abuse limits see; prefer a hop count (1) or the proxy subnet',
    );
  }
  return warnings;
}

function parseEnv(source: NodeJS.ProcessEnv): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    // Every bad variable at once, each named: one restart fixes them all.
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  for (const name of ['SESSION_SECRET', 'ENCRYPTION_KEY'] as const) {
    if (!env[name] && production) {
      throw new ConfigError(`Missing configuration: ${name} is required in production`);
    }
  }
  if (!env.S3_BUCKET) {
    const given = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'] as const).filter((n) => env[n]);
    if (given.length) throw new ConfigError(`Missing configuration: S3_BUCKET is required when ${given.join(', ')} is set`);
  }
  if (env.IMAGE_STORAGE === 's3' && !env.S3_BUCKET)
    throw new ConfigError('Missing configuration: S3_BUCKET is required when IMAGE_STORAGE=s3');
  if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY) {
    const missing = env.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
    throw new ConfigError(`Missing configuration: ${missing} is required with the other S3 key`);
  }
  const full: Env = {
    ...env,
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    SESSION_SECRET: env.SESSION_SECRET ?? devSecret(env.DATA_DIR, 'session-secret', () => crypto.randomBytes(32).toString('hex')),
    ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? devSecret(env.DATA_DIR, 'encryption-key', () => crypto.randomBytes(32).toString('base64')),
  };
  if (source === process.env) {
    // Generated secrets also reach child processes and tools reading the environment.
    process.env.SESSION_SECRET = full.SESSION_SECRET;
    process.env.ENCRYPTION_KEY = full.ENCRYPTION_KEY;
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
