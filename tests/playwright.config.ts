import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

// Artifacts (traces of failed tests) go to a folder of their own per run: engineers share this work
// tree, and Playwright empties its output folder when a run starts. Workers inherit the run id.
const results = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-results');
if (!process.env.E2E_RUN_ID) {
  process.env.E2E_RUN_ID = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  // Keep the folders of the last day's runs only.
  for (const entry of fs.existsSync(results) ? fs.readdirSync(results) : []) {
    const dir = path.join(results, entry);
    if (entry.startsWith('e2e-') && Date.now() - fs.statSync(dir).mtimeMs > 24 * 3600 * 1000)
      fs.rmSync(dir, { recursive: true, force: true });
  }
}

// End-to-end tests on the production build (`npx remix build` first), in Debian's Chromium, once
// with JavaScript and once without. The app, its database and an SMTP server are started by
// e2e/global-setup.ts; tests get the app's URL through the `baseURL` fixture of e2e/fixtures.ts.
export default defineConfig({
  testDir: './e2e',
  outputDir: path.join(results, `e2e-${process.env.E2E_RUN_ID}`),
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: true,
  // Two browsers against the one app process: a third made no run shorter on 2 busy cores (each
  // test took ~40% longer). E2E_WORKERS overrides (a machine with idle cores).
  workers: Number(process.env.E2E_WORKERS) || 2,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'list',
  timeout: 45_000,
  expect: { timeout: 10_000 },
  use: {
    headless: true,
    locale: 'en-US',
    // Every test records a trace (kept only when it fails). Its DOM snapshots show what a failure
    // saw; its screencast (a JPEG per frame painted) cost each browser's GPU process about twice
    // the CPU without it, so the trace has no filmstrip.
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    },
  },
  projects: [
    { name: 'js', use: { javaScriptEnabled: true } },
    // The beacon needs scripts: it runs in the js project only. (axe runs in both: Playwright
    // evaluates it in the page even when the page's own scripts are off.)
    { name: 'no-js', use: { javaScriptEnabled: false }, testIgnore: ['**/pageview.spec.ts'] },
  ],
});
