import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The build prints no future-flag warning. The warnings come from the installed
// @remix-run/dev (one per flag left unset), so this asks that very code about remix.config.js; a
// flag set to false is a decision, and docs/development.md's "Remix future flags" must say why.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'package.json'));

type Future = Record<string, boolean | undefined>;

async function appFuture(): Promise<Future> {
  const config = (await import(path.join(root, 'remix.config.js'))) as { default: { future?: Future } };
  return config.default.future ?? {};
}

function warningsFor(future: Future): string[] {
  const { logger } = require('@remix-run/dev/dist/tux/logger.js') as { logger: { warn: (message: string, opts: { key: string }) => void } };
  const { logFutureFlagWarnings } = require('@remix-run/dev/dist/config.js') as { logFutureFlagWarnings: (f: Future) => void };
  const warned: string[] = [];
  const original = logger.warn;
  logger.warn = (_message, opts) => void warned.push(opts.key);
  try {
    logFutureFlagWarnings(future);
  } finally {
    logger.warn = original;
  }
  return warned;
}

describe('Remix future flags', () => {
  it('the installed Remix warns about some flags when none is set (the check below can fail)', () => {
    expect(warningsFor({}).length).toBeGreaterThan(0);
  });

  it('remix.config.js leaves no flag unset that the build would warn about', async () => {
    expect(warningsFor(await appFuture())).toEqual([]);
  });

  it('each flag not adopted is explained in docs/development.md', async () => {
    const doc = fs.readFileSync(path.join(root, 'docs/development.md'), 'utf8');
    const section = /## Remix future flags\n([\s\S]*?)(\n## |$)/.exec(doc)?.[1] ?? '';
    const declined = Object.entries(await appFuture())
      .filter(([, on]) => on === false)
      .map(([flag]) => flag);
    for (const flag of declined) expect(section, `docs/development.md explains why ${flag} is not adopted`).toContain(`\`${flag}\``);
  });
});
