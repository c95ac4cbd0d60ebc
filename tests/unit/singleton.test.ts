import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('per-process state', () => {
  it('is one value per process even when a module is loaded twice (server.ts and the Remix build)', async () => {
    // A query string makes vite-node load a second copy of a module, as the Remix build does.
    const copy = <T>(specifier: string) => import(/* @vite-ignore */ `${specifier}?copy=b`) as Promise<T>;
    const loggerA = await import('../../app/runtime/logger.server');
    const loggerB = await copy<typeof loggerA>('../../app/runtime/logger.server');
    expect(loggerA.getLogger).not.toBe(loggerB.getLogger);
    expect(loggerA.getLogger()).toBe(loggerB.getLogger());
    const scopeA = await import('../../app/runtime/request-scope.server');
    const scopeB = await copy<typeof scopeA>('../../app/runtime/request-scope.server');
    expect(scopeA.requestScope).toBe(scopeB.requestScope);
    const envA = await import('../../app/runtime/env.server');
    const envB = await copy<typeof envA>('../../app/runtime/env.server');
    expect(envA.loadEnv).not.toBe(envB.loadEnv);
    expect(envA.loadEnv()).toBe(envB.loadEnv());
  });

  it('lives in singleton() only: no other module keeps state on globalThis', () => {
    const files = ['app', 'db', 'jobs']
      .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)))
      .filter((f) => /\.tsx?$/.test(f))
      .concat('server.ts');
    const hits = files.filter(
      (f) => f !== path.join('app/runtime/singleton.server.ts') && fs.readFileSync(path.join(root, f), 'utf8').includes('globalThis'),
    );
    expect(hits).toEqual([]);
  });
});
