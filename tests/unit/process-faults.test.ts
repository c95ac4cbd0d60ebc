import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FATAL_EXIT_CODE } from '../../app/runtime/process-faults.server';

// The policy for an error nothing caught: one fatal log line with the stack and the process's
// context, cleanup, then an exit with FATAL_EXIT_CODE for the supervisor to restart the process.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(env: Record<string, string>): Promise<{ code: number | null; lines: string[]; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/process-fault-child.ts'], {
    cwd: ROOT,
    env: { NODE_ENV: 'test', PATH: process.env.PATH, ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) =>
    child.once('exit', (code) => resolve({ code, lines: output.trim().split('\n'), ms: Date.now() - started })),
  );
}

const fatalLine = (lines: string[]) => lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : null)).find((l) => l?.level === 60);

describe('an uncaught error', () => {
  it('thrown from a timer: logged once as fatal with its stack and context, cleaned up, exit 70', async () => {
    const { code, lines } = await run({ FAULT: 'throw' });
    expect(code).toBe(FATAL_EXIT_CODE);
    const fatal = fatalLine(lines);
    expect(fatal).toMatchObject({ origin: 'uncaughtException', role: 'worker', err: { type: 'TypeError' } });
    expect(fatal.err.stack).toContain("Cannot read properties of null (reading 'write')");
    expect(lines.filter((l) => l.includes('"level":60'))).toHaveLength(1);
    expect(lines).toContain('cleanup ran');
  }, 30_000);

  it('a rejected promise nobody awaited is the same fault', async () => {
    const { code, lines } = await run({ FAULT: 'rejection' });
    expect(code).toBe(FATAL_EXIT_CODE);
    expect(fatalLine(lines)).toMatchObject({ origin: 'unhandledRejection', err: { message: 'nobody awaited this' } });
  }, 30_000);

  it('a cleanup that hangs does not keep the process alive', async () => {
    const { code, lines } = await run({ FAULT: 'throw', CLEANUP: 'hang' });
    expect(code).toBe(FATAL_EXIT_CODE);
    expect(lines).not.toContain('cleanup ran');
  }, 30_000);
});
