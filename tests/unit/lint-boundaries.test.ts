import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The floors of eslint.config.js (ARCHITECTURE.md's layout), checked on snippets placed where they
// would live: every fence refuses a planted upward import, and a downward one passes.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

async function restricted(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId?.endsWith('no-restricted-imports')).map((m) => m.message);
}

const importOf = (source: string) => `import x from '${source}';\nexport default x;\n`;
const typeImportOf = (source: string) => `import type { X } from '${source}';\nexport type Y = X;\n`;

// Each fence: a file on that floor, imports it must refuse (with the message's gist), imports it may make.
const fences: { file: string; refused: [string, RegExp][]; allowed: string[] }[] = [
  {
    file: 'app/routes/example.tsx',
    refused: [
      ['../../db/client', /Only services, the queue and the worker touch the database/],
      ['~/queue/boss', /app\/queue is reached through services/],
      ['../../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: [
      '~/http/json-api.server',
      '~/services/ledger.server',
      '~/components/header',
      '~/runtime/cookies.server',
      '~/utils/safe-redirect',
      '~/catalogue',
    ],
  },
  {
    file: 'app/components/example.tsx',
    refused: [
      ['~/routes/app', /Nothing imports a route module/],
      ['~/http/json-api.server', /app\/http is route glue/],
      ['~/services/ledger.server', /Components run in the browser too/],
      ['~/runtime/env.server', /Components run in the browser too/],
      ['~/runtime/logger.server', /app\/runtime .* server process's infrastructure/],
      ['~/i18n.server', /app\/runtime .* server process's infrastructure/],
      ['../../db/client', /touch the database/],
      ['~/queue/queues', /app\/queue is reached through services/],
    ],
    allowed: ['~/components/ui/button', '~/utils/page-numbers', '~/catalogue', '~/i18n'],
  },
  {
    file: 'app/http/example.server.ts',
    refused: [
      ['~/routes/app', /Nothing imports a route module/],
      ['~/components/header', /Only routes and components import components/],
      ['../../db/client', /touch the database/],
      ['~/queue/boss', /app\/queue is reached through services/],
      ['../../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: ['~/services/sessions.server', '~/runtime/env.server', '~/i18n.server', '~/http/json-api.server'],
  },
  {
    file: 'app/services/example.server.ts',
    refused: [
      ['~/routes/subscription', /Nothing imports a route module/],
      ['../routes/app', /Nothing imports a route module/],
      ['~/components/header', /Only routes and components import components/],
      ['~/http/json-api.server', /app\/http is route glue/],
      ['../http/toast.server', /app\/http is route glue/],
      ['../../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: ['../../db/client', '~/queue/boss', './ledger.server', '~/runtime/logger.server', '~/catalogue'],
  },
  {
    file: 'app/queue/example.ts',
    refused: [
      ['~/services/mail.server', /Services sit above this floor/],
      ['../services/mail.server', /Services sit above this floor/],
      ['~/http/json-api.server', /app\/http is route glue/],
      ['../../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: ['../../db/client', './queues', '~/runtime/logger.server'],
  },
  {
    file: 'db/example.ts',
    refused: [
      ['../app/services/ledger.server', /Services sit above this floor/],
      ['../app/queue/boss', /app\/queue is reached through services/],
      ['../app/http/json-api.server', /app\/http is route glue/],
      ['../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: ['./client', '../app/runtime/env.server', '../app/catalogue'],
  },
  {
    file: 'app/runtime/example.server.ts',
    refused: [
      ['~/services/ledger.server', /Services sit above this floor/],
      ['~/http/toast.server', /app\/http is route glue/],
      ['~/queue/boss', /app\/queue is reached through services/],
      ['../../db/client', /touch the database/],
      ['~/components/header', /Only routes and components import components/],
      ['../../jobs/worker', /jobs\/ is the worker/],
    ],
    allowed: ['./singleton.server', '~/runtime/env.server', '~/utils/time-zone', '~/i18n.server', '~/catalogue', '~/i18n', 'node:fs'],
  },
  {
    file: 'app/i18n.server.ts',
    refused: [
      ['./services/ledger.server', /Services sit above this floor/],
      ['../db/client', /touch the database/],
    ],
    allowed: ['./runtime/cookies.server', './utils/translator', './i18n'],
  },
  {
    file: 'app/utils/example.ts',
    refused: [
      ['~/runtime/env.server', /app\/runtime .* server process's infrastructure/],
      ['../runtime/logger.server', /app\/runtime .* server process's infrastructure/],
      ['~/i18n.server', /app\/runtime .* server process's infrastructure/],
      ['node:fs', /app\/utils is pure/],
      ['~/services/ledger.server', /Services sit above this floor/],
      ['~/http/toast.server', /app\/http is route glue/],
      ['~/queue/boss', /app\/queue is reached through services/],
      ['../../db/client', /touch the database/],
      ['~/components/header', /Only routes and components import components/],
    ],
    allowed: ['~/utils/time-zone', './intl-format', '~/catalogue', '~/i18n'],
  },
  {
    file: 'app/catalogue.ts',
    refused: [
      ['~/runtime/env.server', /app\/runtime .* server process's infrastructure/],
      ['./utils/intl-format', /The ground floor/],
      ['./services/ledger.server', /Services sit above this floor/],
    ],
    allowed: ['./locales/en/common.json', 'zod'],
  },
  {
    file: 'jobs/handlers/example.ts',
    refused: [
      ['~/http/json-api.server', /app\/http is route glue/],
      ['~/routes/app', /Nothing imports a route module/],
    ],
    allowed: ['~/services/mail.server', '~/queue/boss', '../../db/client', '~/runtime/logger.server'],
  },
];

describe('the floors: each fence fails on a planted upward import', () => {
  for (const { file, refused, allowed } of fences) {
    it(`${file}`, async () => {
      for (const [source, why] of refused) {
        const messages = await restricted(importOf(source), file);
        expect(messages, `${file} importing ${source}`).toContainEqual(expect.stringMatching(why));
      }
      for (const source of allowed) {
        expect(await restricted(importOf(source), file), `${file} importing ${source}`).toEqual([]);
      }
    });
  }

  it('a pure helper reads no process (environment, exit, pid): app/runtime does', async () => {
    const [result] = await eslint.lintText('export const port = process.env.PORT;\n', {
      filePath: path.join(root, 'app/utils/example.ts'),
    });
    expect(result!.messages.map((m) => m.ruleId)).toContain('no-restricted-globals');
    const [runtime] = await eslint.lintText('export const port = process.env.PORT;\n', {
      filePath: path.join(root, 'app/runtime/example.server.ts'),
    });
    expect(runtime!.messages.map((m) => m.ruleId)).not.toContain('no-restricted-globals');
  });

  it('a component may name a server module or HTTP glue type: the compiler erases it', async () => {
    expect(await restricted(typeImportOf('~/services/results.server'), 'app/components/example.tsx')).toEqual([]);
    expect(await restricted(typeImportOf('~/http/json-api.server'), 'app/components/example.tsx')).toEqual([]);
    // Anywhere else a type import is still an arrow up the house.
    expect(await restricted(typeImportOf('~/http/json-api.server'), 'app/services/example.server.ts')).toHaveLength(1);
  });

  it('the real tree passes every fence', async () => {
    const results = await eslint.lintFiles(['app', 'db', 'jobs', 'server.ts']);
    const broken = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId?.endsWith('no-restricted-imports')).map((m) => `${path.relative(root, r.filePath)}: ${m.message}`),
    );
    expect(broken).toEqual([]);
  }, 120_000);
});
