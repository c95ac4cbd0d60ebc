// server.ts and the Remix build are two module graphs in one process: state that must exist once
// per process (the pool, pg-boss, the logger, the env) is kept on globalThis under one name.
const store = globalThis as unknown as { __postforge?: Map<string, unknown> };

/** The process's one value for name, created by make on first use. */
export function singleton<T>(name: string, make: () => T): T {
  store.__postforge ??= new Map();
  if (!store.__postforge.has(name)) store.__postforge.set(name, make());
  return store.__postforge.get(name) as T;
}

/** Forgets name (for close/stop paths), returning what was held. */
export function dropSingleton<T>(name: string): T | undefined {
  const value = store.__postforge?.get(name) as T | undefined;
  store.__postforge?.delete(name);
  return value;
}
