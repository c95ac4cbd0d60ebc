import { AsyncLocalStorage } from 'node:async_hooks';
import { singleton } from './singleton.server';

// Per-request memo shared by the loaders of one document request (Remix hands each loader its own
// Request copy, so the Request cannot key it). server.ts opens a scope around every request; the
// storage is a singleton() because server.ts and the Remix build are two module graphs.
type Scope = Map<string, Promise<unknown>>;
export const requestScope = singleton('request-scope', () => new AsyncLocalStorage<Scope>());

/** Runs fn once per request scope and key; outside a scope (jobs, tests) it just runs fn. */
export function memoPerRequest<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const scope = requestScope.getStore();
  if (!scope) return fn();
  let pending = scope.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = fn();
    scope.set(key, pending);
  }
  return pending;
}
