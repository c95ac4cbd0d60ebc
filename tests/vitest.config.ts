import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './support/slow-first-sequencer';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default defineConfig({
  root,
  resolve: { alias: { '~': path.join(root, 'app') } },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    globalSetup: ['tests/support/vitest-global-setup.ts'],
    setupFiles: ['tests/support/vitest-setup.ts'],
    pool: 'forks',
    // Test files spend most of their time waiting (on Postgres, WordPress, child processes, pollers),
    // so more files than cores run at once: each worker has a database of its own
    // (support/vitest-setup.ts). Vitest's default on 2 cores is one worker; on a quiet 2-core machine
    // four took the run from ~410 to ~340 s. VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || 4,
    minWorkers: 1,
    sequence: { sequencer: SlowFirstSequencer },
    // The app's production build (build/index.js, one 1.4 MB bundle that ~40 files load to serve
    // pages) is imported by Node itself: run through vite-node it took ~2 s in each of them.
    server: { deps: { external: [/\/build\/index\.js$/] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      NODE_ENV: 'test',
      SESSION_SECRET: 'test-session-secret-0123456789abcdef',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      APP_URL: 'http://localhost:3999',
      LOG_LEVEL: 'silent',
    },
  },
});
