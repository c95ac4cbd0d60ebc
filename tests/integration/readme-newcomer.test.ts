import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { loadEnv } from '../../app/runtime/env.server';
import { available, createGenUser } from '../support/generation';

// A newcomer's first run: README and docs/ stand alone (no link out of the repository), the quick
// start says how to move the app's and the embedded database's ports, and the development
// credits line it documents really gives a Free account enough for a 10-topic run. The commands are
// read from README itself, so the documentation and the behaviour cannot drift apart.
const root = path.resolve(__dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const quickStart = /## The two commands\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
const shellLines = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));

let s: {
  gen: typeof import('../../app/services/generation/start.server');
  schema: typeof import('../../app/utils/generation-schema');
};

beforeAll(async () => {
  process.env.OPENROUTER_API_KEY ??= 'sk-operator';
  s = { gen: await import('../../app/services/generation/start.server'), schema: await import('../../app/utils/generation-schema') };
});

describe('README for a newcomer', () => {
  it('links only to files of the repository (a clone has no ../shared)', () => {
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
    for (const doc of ['README.md', ...docs.map((f) => `docs/${f}`)]) {
      const text = fs.readFileSync(path.join(root, doc), 'utf8');
      expect(text, doc).not.toMatch(/\.\.\/shared|`\.\.\//);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        expect(fs.existsSync(path.resolve(path.dirname(path.join(root, doc)), target!)), `${doc} → ${target}`).toBe(true);
      }
    }
    expect(readme).toContain('(docs/ARCHITECTURE.md)');
  });

  it("every link to a section names a heading of its page (as the forge's anchors spell it)", () => {
    const anchor = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, '')
        .replace(/ /g, '-');
    const headings = (file: string) => new Set([...fs.readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1]!)));
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
    for (const doc of ['README.md', ...docs.map((f) => `docs/${f}`)]) {
      const file = path.join(root, doc);
      for (const [, target, section] of fs.readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
        const page = target ? path.resolve(path.dirname(file), target) : file;
        expect(headings(page), `${doc} → ${target}#${section}`).toContain(section);
      }
    }
  });

  it("CI runs README's test command, and that command runs every check, the build and both test runners", () => {
    const testCommands = (lines: string[]) => lines.map((l) => l.trim()).filter((l) => /^npm (run )?test(\s|$)/.test(l));
    const ci = fs.readFileSync(path.join(root, '.ci/run'), 'utf8').split('\n');
    expect(testCommands(shellLines(readme))).toEqual(['npm test']);
    expect(testCommands(ci)).toEqual(['npm test']);
    const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const steps = scripts.test!.split(/\s*&&\s*/);
    expect(steps).toEqual([
      'node scripts/run-together.mjs lint format:check typecheck build',
      'npm run test:unit',
      'playwright test -c tests/playwright.config.ts',
    ]);
  });

  it('the quick start says how to change PORT and the embedded database port, with settings the app reads', () => {
    const line = shellLines(quickStart).find((l) => /\bPORT=\d+/.test(l) && /EMBEDDED_PG_PORT=\d+/.test(l));
    expect(line, 'a command with PORT= and EMBEDDED_PG_PORT=').toBeTruthy();
    expect(line).toContain('npm run app');
    const vars = Object.fromEntries([...line!.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    const env = loadEnv({ ...vars, NODE_ENV: 'development' });
    expect(env.PORT).toBe(Number(vars.PORT));
    expect(env.EMBEDDED_PG_PORT).toBe(Number(vars.EMBEDDED_PG_PORT));
    expect(env.APP_URL).toBe(`http://localhost:${vars.PORT}`);
  });

  it("the quick start's development-credits command lets a Free account start a 10-topic run", async () => {
    const command = shellLines(quickStart).find((l) => l.startsWith('npm run ledger -- adjust'));
    expect(command, 'a `npm run ledger -- adjust` line in the quick start').toBeTruthy();
    const user = await createGenUser(getSql(), { status: 'free', label: 'newcomer' });
    expect(await available(getSql(), user.id)).toBe(5);
    const tenTopics = s.schema.textGenerationSchema().parse({
      prompts: Array.from({ length: 10 }, (_, i) => `Topic ${i + 1}`).join('\n'),
      model: 'openai/gpt-4o-mini-search-preview',
    });
    // Without the credits, the first 10-topic run is refused...
    await expect(s.gen.startRun(user.id, tenTopics)).rejects.toThrow();
    // ...then the documented line, with the newcomer's address, run as `npm run ledger` runs it.
    const args = [...command!.replace(/^npm run ledger -- /, '').matchAll(/"([^"]*)"|(\S+)/g)].map(
      (m) => m[1] ?? (m[2] === 'you@example.com' ? user.email : m[2]!),
    );
    const { stdout } = await promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['app/cli/ledger.ts', ...args], {
      cwd: root,
      env: { ...process.env, LEDGER_ACTOR: 'newcomer-test' },
    });
    expect(stdout).toMatch(/balance now 105/);
    const run = await s.gen.startRun(user.id, tenTopics);
    expect(run.resultIds).toHaveLength(10);
    expect(await available(getSql(), user.id)).toBe(95);
  });
});
