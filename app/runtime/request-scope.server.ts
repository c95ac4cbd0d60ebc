import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { singleton } from './singleton.server';

// Per-request memo shared by the loaders of one document request (Remix hands each loader its own
// Request copy, so the Request cannot key it), and the request's timing for its Server-Timing
// header. server.ts opens a scope around every read request; the storage is a singleton() because
// server.ts and the Remix build are two module graphs.

/** Where a page request's time went: database calls (db/client.ts adds them) and the phases. */
export type RequestTiming = { startedAt: number; dbMs: number; queries: number };
type Scope = { memo: Map<string, Promise<unknown>>; timing: RequestTiming };
export const requestScope = singleton('request-scope', () => new AsyncLocalStorage<Scope>());

export function newRequestScope(): Scope {
  return { memo: new Map(), timing: { startedAt: performance.now(), dbMs: 0, queries: 0 } };
}

/** Runs fn once per request scope and key; outside a scope (jobs, tests) it just runs fn. */
export function memoPerRequest<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const scope = requestScope.getStore();
  if (!scope) return fn();
  let pending = scope.memo.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = fn();
    scope.memo.set(key, pending);
  }
  return pending;
}

/** The timing of the request being served, or undefined outside a request scope. */
export function requestTiming(): RequestTiming | undefined {
  return requestScope.getStore()?.timing;
}

/**
 * Forgets what this request's scope remembered: a request served again after its database
 * connection was lost must not get the first attempt's failed lookups back.
 */
export function forgetRequestMemo(): void {
  requestScope.getStore()?.memo.clear();
}
