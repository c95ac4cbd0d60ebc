import { performance } from 'node:perf_hooks';
import { requestTiming, type RequestTiming } from './request-scope.server';

// The Server-Timing header of page responses: an operator sees in the browser's
// devtools (Network → Timing) where a slow page spent its time on the server.
//   db      time in database calls made while serving it (parallel calls each count), with their number
//   loaders from the request entering Remix to the render's start (matching, session, loaders)
//   render  the React render of the document
// Every value is in milliseconds; a data request (client navigation) has db and loaders only.

const ms = (n: number) => n.toFixed(1);

/**
 * Times one awaited database call into the request's timing. postgres.js runs a query when it is
 * first awaited (then), so a query used only as a fragment of another is never counted.
 */
export function timeQuery<Q extends PromiseLike<unknown>>(query: Q): Q {
  const timing = requestTiming();
  if (!timing || typeof query?.then !== 'function') return query;
  const then = query.then;
  let counted = false;
  Object.defineProperty(query, 'then', {
    configurable: true,
    writable: true,
    value: function timedThen(this: Q, ...args: Parameters<Q['then']>) {
      if (!counted) {
        counted = true;
        const started = performance.now();
        const done = () => void (timing.dbMs += performance.now() - started);
        timing.queries++;
        then.call(this, done, done);
      }
      return then.apply(this, args);
    },
  });
  return query;
}

/** Times a promise of database work that is not a single query (a transaction). */
export function timeDatabaseWork<T>(work: Promise<T>): Promise<T> {
  const timing = requestTiming();
  if (!timing) return work;
  const started = performance.now();
  timing.queries++;
  const done = () => void (timing.dbMs += performance.now() - started);
  work.then(done, done);
  return work;
}

function header(timing: RequestTiming, loadersMs: number, renderMs?: number): string {
  const parts = [`db;dur=${ms(timing.dbMs)};desc="database (${timing.queries} calls)"`, `loaders;dur=${ms(loadersMs)}`];
  if (renderMs !== undefined) parts.push(`render;dur=${ms(renderMs)}`);
  return parts.join(', ');
}

/** Called as the document render starts: the loaders' phase ends here. Returns the finishing step. */
export function startRenderTiming(): (headers: Headers) => void {
  const timing = requestTiming();
  if (!timing) return () => {};
  const renderStart = performance.now();
  const loadersMs = renderStart - timing.startedAt;
  return (headers) => {
    headers.set('Server-Timing', header(timing, loadersMs, performance.now() - renderStart));
  };
}

/** The header of a data request (a client navigation's loader data). */
export function setDataTiming(headers: Headers): void {
  const timing = requestTiming();
  if (timing) headers.set('Server-Timing', header(timing, performance.now() - timing.startedAt));
}
