import { AsyncResource } from 'node:async_hooks';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { createRequestHandler } from '@remix-run/express';
import type { ServerBuild } from '@remix-run/node';
import compression from 'compression';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type pino from 'pino';
import helmet from 'helmet';
import onHeaders from 'on-headers';
import { languageFromHeaders, resources } from './app/i18n.server';
import { readCookie } from './app/runtime/cookies.server';
import { cachedLanding, landingRequestKey } from './app/runtime/landing-cache.server';
import { ConfigError, configWarnings, loadEnv, type Env } from './app/runtime/env.server';
import { getLogger } from './app/runtime/logger.server';
import { exitOnUncaughtErrors } from './app/runtime/process-faults.server';
import { newRequestScope, requestScope } from './app/runtime/request-scope.server';
import { BROTLI_QUALITY, GZIP_LEVEL } from './app/runtime/compression.server';
import { retryReadOnLostConnection } from './app/http/lost-connection-retry.server';
import { stripeWebhookHandler } from './app/http/stripe-webhook.server';
import { bearerToken, refuseBearerOnSessionOnly } from './app/http/api-bearer.server';
import { databaseMarkedDown, markDatabaseUp, onceMoreIfLost } from './app/runtime/db-unavailable.server';
import { newRequestId, REQUEST_ID_HEADER } from './app/runtime/request-id.server';
import { logUnavailable, sendUnavailable } from './app/http/unavailable.server';
import { lastErrorHandler } from './app/http/last-error.server';
import { isApiPath, splitApiRoutes } from './app/http/split-build.server';
import { migrate, migrationsApplied } from './db/migrate';
import { openDatabase, type OpenDatabase } from './db/open';
import { EmbeddedStartError } from './db/embedded';
import { startBoss, stopBoss } from './app/queue/boss';
import { startWorkers } from './jobs/worker';
import { stopGenerationLoop } from './jobs/generation-loop';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const BODY_LIMIT = 1024 * 1024;

export type AppOptions = { env: Env; db: OpenDatabase; build: ServerBuild; logger: pino.Logger };

/** The headers a helmet middleware sets, read once from a stand-in response. */
function headersOf(middleware: (req: Request, res: Response, next: (err?: unknown) => void) => void, req: Request, res: object) {
  const headers: [string, string][] = [];
  const recorder = { ...res, setHeader: (name: string, value: string) => void headers.push([name, String(value)]), removeHeader: () => {} };
  middleware(req, recorder as unknown as Response, () => {});
  return headers;
}

/**
 * Security headers through helmet, with a fresh CSP nonce per request (read by entry.server through
 * the load context). helmet's answer is the same for every request but for the nonce, and its dozen
 * middlewares cost about as much as a page's session lookup, so it runs once, at start-up, with a
 * placeholder nonce; each request sets the recorded headers with its own nonce in the CSP.
 */
function securityHeaders(env: Env) {
  const https = env.APP_URL.startsWith('https:');
  const placeholder = 'NONCE-PLACEHOLDER';
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as Response).locals.cspNonce as string}'`],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'", 'https://checkout.stripe.com'],
        objectSrc: ["'none'"],
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https ? { maxAge: 31536000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
  });
  const recorded = headersOf(headers, {} as Request, { locals: { cspNonce: placeholder } });
  const csp = recorded.find(([name]) => name === 'Content-Security-Policy');
  if (!csp || csp[1].split(placeholder).length !== 2) throw new Error('helmet set no Content-Security-Policy with the nonce');
  const [cspBefore, cspAfter] = csp[1].split(placeholder) as [string, string];
  const fixed = recorded.filter((header) => header !== csp);
  return (_req: Request, res: Response, next: NextFunction) => {
    const nonce = crypto.randomBytes(16).toString('base64');
    res.locals.cspNonce = nonce;
    res.setHeader('Content-Security-Policy', cspBefore + nonce + cspAfter);
    for (const [name, value] of fixed) res.setHeader(name, value);
    // helmet has no Permissions-Policy.
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    next();
  };
}

/**
 * The request's id (app/runtime/request-id.server.ts): ours, never the client's; answered in
 * X-Request-Id and set on the request itself, where the Remix build reads it.
 */
function requestId(req: Request, res: Response, next: NextFunction) {
  const id = newRequestId();
  res.locals.requestId = id;
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader('X-Request-Id', id);
  next();
}

/** One log line per request; the path only (query strings may carry tokens), never bodies or cookies. */
function requestLog(logger: pino.Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info(
        {
          requestId: res.locals.requestId as string,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}

/** The translated "request refused" answer: JSON for the API and for clients that ask for it, a page otherwise. */
function refusedOrigin(req: Request, res: Response) {
  const language = languageFromHeaders(req.get('cookie'), req.get('accept-language'));
  const t = resources[language].common.errors;
  res.setHeader('Cache-Control', 'no-store');
  if (req.path.startsWith('/api/') || req.accepts(['html', 'json']) === 'json') {
    return void res.status(403).json({ error: t.crossSite });
  }
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  res
    .status(403)
    .type('html')
    .send(
      `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escape(t.crossSiteTitle)}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">` +
        `<h1>${escape(t.crossSiteTitle)}</h1><p>${escape(t.crossSite)}</p><p><a href="/">${escape(t.home)}</a></p></body></html>`,
    );
}

/**
 * Cross-site request forgery guard: state-changing requests must come from our own origin, that is
 * APP_URL (whatever Host a proxy sent) or the origin the request was addressed to. `Origin: null`
 * (opaque origins, privacy redirects) counts as foreign unless the browser vouches same-origin.
 * This is THE check: once passed, the Origin header is dropped so Remix's own Host comparison
 * (which a Host-rewriting proxy fails with a 500) does not run a second, weaker version of it.
 */
function sameOriginOnly(env: Env) {
  const appOrigin = new URL(env.APP_URL).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    // Server-to-server webhooks carry their own signature and no browser Origin.
    if (req.path.startsWith('/api/webhooks/') || req.path.startsWith('/webhooks/')) return next();
    // An API token is the credential itself, never sent by a browser on its own: a forged form
    // cannot carry it. Only without a cookie, so a cookie never rides along unchecked.
    if (bearerToken(req.get('authorization')) !== null && !req.get('cookie')) {
      delete req.headers.origin;
      return next();
    }
    const origin = req.get('origin');
    const fetchSite = req.get('sec-fetch-site');
    let ok: boolean;
    if (origin && origin !== 'null') ok = origin === appOrigin || origin === `${req.protocol}://${req.get('host')}`;
    else if (origin === 'null') ok = fetchSite === 'same-origin';
    else ok = fetchSite !== 'cross-site' && fetchSite !== 'same-site';
    if (!ok) return refusedOrigin(req, res);
    delete req.headers.origin;
    next();
  };
}

// Upload routes that bound the body themselves (refused by Content-Length before reading, parts
// capped while streaming) and answer a translated message: the CSV import (its file may be 1 MB).
const SELF_LIMITED_PATHS = new Set(['/api/upload-csv', '/app/csv']);

/** Bodies over 1 MB are refused before anything reads them. */
function bodyLimit(req: Request, res: Response, next: NextFunction) {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  if (SELF_LIMITED_PATHS.has(req.path)) return next();
  const length = req.get('content-length');
  if (length === undefined) {
    if (req.get('transfer-encoding')) return void res.status(411).type('text/plain').send('Length Required');
    return next();
  }
  if (Number(length) > BODY_LIMIT) return void res.status(413).type('text/plain').send('Payload Too Large');
  next();
}

/**
 * public/ holds files with an extension (favicon.svg, the build's assets): a page URL such as /app
 * goes straight on instead of costing a failed stat() (and its error object) on every request.
 */
function publicFiles(serve: express.Handler) {
  return (req: Request, res: Response, next: NextFunction) => (path.extname(req.path) ? serve(req, res, next) : next());
}

const PERSONAL_TYPES = /^(?:text\/html|application\/json|text\/csv|text\/x-script)/i;

/**
 * Every answer to a signed-in request (session cookie or API token) that carries a page or data (HTML, JSON, CSV, Remix data) is
 * `private, no-store`, so Back after logout or a shared proxy never shows the account again.
 */
function noStoreWhenSignedIn(req: Request, res: Response, next: NextFunction) {
  if (!readCookie(req.get('cookie'), '__session') && !req.get('authorization')) return next();
  onHeaders(res, () => {
    if (PERSONAL_TYPES.test(String(res.getHeader('content-type') ?? ''))) res.setHeader('Cache-Control', 'private, no-store');
  });
  next();
}

/**
 * While a request has found the database unreachable (db-unavailable marks it), answer every page
 * and API call a translated 503 at once, each logged once; one probe a second notices the database
 * is back. A probe that lands on a connection just terminated tries once more, so one lost
 * connection does not turn a second of requests away.
 */
function databaseGate(db: OpenDatabase) {
  let last: { at: number; up: Promise<true | { error: unknown }> } | undefined;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!databaseMarkedDown()) return next();
    if (!last || Date.now() - last.at >= 1000)
      last = {
        at: Date.now(),
        up: onceMoreIfLost(() => db.sql`SELECT 1`).then(
          () => true as const,
          (error: unknown) => ({ error }),
        ),
      };
    void last.up.then(async (up) => {
      if (up === true) {
        markDatabaseUp();
        return next();
      }
      logUnavailable(req, res, up.error);
      await sendUnavailable(req, res);
    }, next);
  };
}

/**
 * The anonymous landing page from the landing cache (app/runtime/landing-cache.server.ts), answered
 * before Remix matches routes and runs loaders; a miss goes on to Remix, which renders and stores it.
 */
function landingFromCache(req: Request, res: Response, next: NextFunction) {
  const key = landingRequestKey(req.method, req.originalUrl, req.get('cookie'), req.get('accept-language'));
  const hit = key && cachedLanding(key, res.locals.cspNonce as string);
  if (!hit) return next();
  for (const [name, value] of hit.headers) res.setHeader(name, value);
  res.setHeader('X-Page-Cache', 'hit');
  res.setHeader('Content-Length', hit.body.length);
  res.end(hit.body);
}

/** The request line's bounds: beyond them a request is refused at once instead of waiting. */
export type LineLimits = {
  /** Requests that may wait for a turn; one more is refused. */
  maxWaiting: number;
  /** The longest a request waits for its turn before it is refused. */
  maxWaitMs: number;
  /** Answers a refused request (a 503 with Retry-After). */
  refuse: (req: Request, res: Response) => void;
};

/**
 * Requests take turns into Remix: at most `slots` at once, the rest wait first come, first served.
 * Fifty renders interleaved each finish late (the signed-in page at 50 connections: p99 5.7 s, p50
 * 0.8 s); taking turns keeps the same throughput and a p99 of ~1 s. A request holds its turn until
 * it ends or for `slotMs` at most, so one waiting on the network (a WordPress site, a provider)
 * never holds up the others. The line is bounded (`limits`): an overloaded process says so with a
 * 503 and Retry-After, so a load balancer or client tries elsewhere or later, rather than queueing
 * without end.
 */
export function takeTurns(slots: number, slotMs: number, limits?: LineLimits) {
  let active = 0;
  const waiting: { start: () => void; timer?: NodeJS.Timeout }[] = [];
  const leaveLine = (turn: (typeof waiting)[number]) => {
    const at = waiting.indexOf(turn);
    if (at >= 0) waiting.splice(at, 1);
    clearTimeout(turn.timer);
    return at >= 0;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const start = () => {
      active++;
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        clearTimeout(timer);
        active--;
        waiting.shift()?.start();
      };
      const timer = setTimeout(release, slotMs);
      // A client gone while it waited gives its turn on at once.
      if (res.closed) return release();
      res.once('close', release);
      next();
    };
    if (active < slots) return start();
    if (limits && waiting.length >= limits.maxWaiting) return limits.refuse(req, res);
    // Bound: a turn given by another request's end runs in this request's own async context.
    const turn: (typeof waiting)[number] = {
      start: AsyncResource.bind(() => {
        clearTimeout(turn.timer);
        start();
      }),
    };
    if (limits) {
      turn.timer = setTimeout(() => leaveLine(turn) && limits.refuse(req, res), limits.maxWaitMs);
      // A client gone while waiting leaves the line (it no longer counts against its length).
      res.once('close', () => leaveLine(turn));
    }
    waiting.push(turn);
  };
}

/**
 * SIGTERM ends the process within this (Docker's default stop timeout): requests in flight and
 * generation items at their provider get REQUEST_DRAIN_MS (the items are then handed back to be
 * taken over by another worker), pg-boss's running jobs what is left.
 */
const SHUTDOWN_GRACE_MS = 10_000;
const REQUEST_DRAIN_MS = 5_000;

/** Everything but a rendered page (which entry.server compresses whole), at the same settings. */
const COMPRESSION: compression.CompressionOptions = {
  level: GZIP_LEVEL,
  brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
};

/** Turns into Remix: enough to overlap database round trips, few enough to finish in order. */
const REMIX_SLOTS = 4;
const REMIX_SLOT_MS = 100;

/** The translated 503 of a full request line: JSON for the API and data requests, a page otherwise. */
export function refuseBusy(req: Request, res: Response) {
  void sendUnavailable(req, res, 'busy');
}

/**
 * `/healthz`: the process runs. `/readyz`: it can do its work: the database answers and every
 * migration is applied (a process listens only once its start-up, workers included, is done).
 */
function healthChecks(app: Express, db: OpenDatabase) {
  app.get('/healthz', (_req, res) => void res.type('text/plain').send('ok'));
  app.get('/readyz', async (_req, res) => {
    try {
      // A connection terminated just now does not make the process unready: the next one answers.
      await onceMoreIfLost(() => db.sql`SELECT 1`);
      if (!(await migrationsApplied(db.sql))) return void res.status(503).type('text/plain').send('migrations pending');
      res.type('text/plain').send('ready');
    } catch {
      res.status(503).type('text/plain').send('database unreachable');
    }
  });
}

/** A ROLE=worker process serves its health checks only, for the orchestrator's probes. */
export function createWorkerApp(db: OpenDatabase): Express {
  const app = express();
  app.disable('x-powered-by');
  healthChecks(app, db);
  app.use((_req, res) => void res.status(404).type('text/plain').send('Not found: this process runs workers only'));
  return app;
}

export function createApp({ env, db, build, logger }: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // A hop count, addresses/subnets or true, already typed by the env contract.
  if (env.TRUST_PROXY !== undefined) app.set('trust proxy', env.TRUST_PROXY);

  app.use(requestId);
  healthChecks(app, db);

  app.use(requestLog(logger));
  app.use(compression(COMPRESSION));
  app.use(securityHeaders(env));
  // Fingerprinted assets never change; everything else in public/ may.
  app.use('/build', express.static(path.join(ROOT, 'public/build'), { immutable: true, maxAge: '1y', index: false }));
  app.use(publicFiles(express.static(path.join(ROOT, 'public'), { maxAge: '1h', index: false })));
  app.use(noStoreWhenSignedIn);
  app.use(bodyLimit);
  app.use(refuseBearerOnSessionOnly);
  app.use(sameOriginOnly(env));
  app.post('/webhooks/stripe', ...stripeWebhookHandler);
  app.use(databaseGate(db));
  app.use(landingFromCache);
  app.use(
    takeTurns(REMIX_SLOTS, REMIX_SLOT_MS, {
      maxWaiting: env.REQUEST_QUEUE_MAX,
      maxWaitMs: env.REQUEST_QUEUE_WAIT_SECONDS * 1000,
      refuse: refuseBusy,
    }),
  );
  // Reads: one memo scope per request (the session is looked up once for all loaders), which also
  // times the request for its Server-Timing header.
  app.use((req, _res, next) => (req.method === 'GET' || req.method === 'HEAD' ? requestScope.run(newRequestScope(), next) : next()));
  // A read whose database connection was lost under it is served once more; any other failure for
  // the database leaves Remix (entry.server's handleError throws it) for the last error handler's 503.
  // The API and the pages each have a Remix handler of their own routes (split-build.server.ts).
  const remix = (routes: ServerBuild) =>
    retryReadOnLostConnection(
      createRequestHandler({
        build: routes,
        mode: env.NODE_ENV === 'production' ? 'production' : 'development',
        getLoadContext: (req, res) => ({ cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? '' }),
      }),
    );
  const split = splitApiRoutes(build);
  const api = remix(split.api);
  const pages = remix(split.pages);
  app.all('*', (req, res, next) => (isApiPath(req.path) ? api : pages)(req, res, next));
  app.use(lastErrorHandler(logger));
  return app;
}

export async function loadBuild(): Promise<ServerBuild> {
  return (await import(pathToFileURL(path.join(ROOT, 'build/index.js')).href)) as ServerBuild;
}

/** Starts the process: settings, database, migrations, workers and/or HTTP, graceful shutdown. */
export async function main() {
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
  exitOnUncaughtErrors(logger, { role: env.ROLE }, () => db.close());
  const applied = await migrate(db.sql);
  if (applied.length) logger.info({ applied }, 'migrations applied');

  if (env.ROLE !== 'web') await startWorkers();
  else await startBoss('web');

  // Every role listens on PORT: web and all serve the app, a worker its health checks alone.
  const server = http.createServer(env.ROLE === 'worker' ? createWorkerApp(db) : createApp({ env, db, build: await loadBuild(), logger }));
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(env.PORT, () => (server.off('error', reject), resolve()));
    });
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    logger.fatal(
      inUse ? `PORT ${env.PORT} is in use: every process (workers too, for /readyz) needs its own PORT on one host` : String(err),
    );
    await stopGenerationLoop().catch(() => {});
    await stopBoss().catch(() => {});
    await db.close();
    process.exit(1);
  }
  if (env.ROLE === 'worker') logger.info({ role: env.ROLE, port: env.PORT }, 'Postforge workers started');
  else logger.info({ url: env.APP_URL, role: env.ROLE, embeddedDatabase: db.embedded }, 'Postforge is listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const began = Date.now();
    logger.info({ signal }, 'shutting down');
    // The process ends within SHUTDOWN_GRACE_MS of the signal (Docker's default stop timeout);
    // every phase below is bounded to fit, this is the last resort.
    const force = setTimeout(() => {
      logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown took longer than its grace period: exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // The generation loop stops claiming at once and gives its items REQUEST_DRAIN_MS at most to
    // finish, then hands them back; meanwhile the requests in flight finish.
    const generation = stopGenerationLoop().catch((err) => logger.error({ err: (err as Error).message }, 'generation loop stop failed'));
    // close() waits for every connection; a keep-alive connection busy now turns idle once its
    // response is sent and would then linger for keepAliveTimeout, so keep closing idle ones.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let drainTimer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      closed.then(() => true),
      new Promise<false>((resolve) => (drainTimer = setTimeout(() => resolve(false), REQUEST_DRAIN_MS))),
    ]);
    clearTimeout(drainTimer);
    if (!drained) {
      // A request waiting on a provider or a WordPress site must not hold the process past its grace.
      logger.warn({ afterMs: REQUEST_DRAIN_MS }, 'requests still running at shutdown: their connections are closed');
      server.closeAllConnections();
      await closed;
    }
    clearInterval(sweep);
    await generation;
    // What is left of the grace, less a moment for the pools, goes to pg-boss's running jobs.
    const bossMs = Math.max(1000, SHUTDOWN_GRACE_MS - (Date.now() - began) - 2000);
    await stopBoss(bossMs).catch((err) => logger.error({ err: (err as Error).message }, 'pg-boss stop failed'));
    await db.close();
    logger.info({ ms: Date.now() - began }, 'stopped');
    process.exit(0);
  };
  // Ours alone: it stops everything in order, embedded Postgres last (a library's handler that exits
  // at once would cut the graceful shutdown short). tsx's relay handler, in development, is hidden
  // from process.listeners() and stays. SIGHUP (the terminal closed) too: dying of it would leave
  // the embedded Postgres, which runs in its own process group, behind.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => void shutdown(signal));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await main();
}
