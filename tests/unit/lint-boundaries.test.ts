import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import boundaries of eslint.config.js, checked on snippets placed where they would live.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

async function restricted(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId?.endsWith('no-restricted-imports')).map((m) => m.message);
}

describe('import boundaries', () => {
  it('a service may not import a route or a component', async () => {
    for (const source of ['~/routes/subscription', '../routes/app', '~/components/header', '../components/ui/button']) {
      expect(await restricted(`import x from '${source}';\nexport default x;\n`, 'app/services/example.server.ts')).toEqual([
        expect.stringMatching(/Services never import routes or components/),
      ]);
    }
    expect(await restricted(`import { sql } from '../../db/client';\nexport default sql;\n`, 'app/services/example.server.ts')).toEqual([]);
    expect(
      await restricted(`import { getLogger } from '~/utils/logger.server';\nexport default getLogger;\n`, 'app/services/example.server.ts'),
    ).toEqual([]);
  });

  it('a component may not import a *.server module', async () => {
    for (const source of ['~/services/ledger.server', '../utils/env.server', '~/utils/logger.server.ts']) {
      expect(await restricted(`import x from '${source}';\nexport default x;\n`, 'app/components/example.tsx')).toEqual([
        expect.stringMatching(/Components never import \*\.server modules/),
      ]);
    }
    expect(await restricted(`import { plans } from '~/catalogue';\nexport default plans;\n`, 'app/components/example.tsx')).toEqual([]);
    // A type-only import is erased by the compiler: nothing of the server module reaches the browser.
    expect(
      await restricted(`import type { Result } from '~/services/results.server';\nexport type R = Result;\n`, 'app/components/example.tsx'),
    ).toEqual([]);
    // Routes may (their loaders run on the server).
    expect(await restricted(`import x from '~/services/ledger.server';\nexport default x;\n`, 'app/routes/example.tsx')).toEqual([]);
  });
});
