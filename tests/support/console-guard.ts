import { format } from 'node:util';
import { afterEach, beforeEach } from 'vitest';

// A test fails when something logs through console.error that the test did not declare: an error
// nobody asserted on is a bug hiding in the output. A test that provokes one on purpose says so
// first, and then also fails if the error never comes:
//
//   import { expectConsoleError } from '../support/console-guard';
//   it('reports a broken provider', async () => {
//     expectConsoleError(/provider answered 500/);
//     ...
//   });

type Pattern = RegExp | string;
const state = { expected: [] as Pattern[], calls: [] as string[] };

/** Declares that the current test logs a console.error matching pattern (one declaration per error kind). */
export function expectConsoleError(pattern: Pattern): void {
  state.expected.push(pattern);
}

const matches = (text: string, p: Pattern) => (typeof p === 'string' ? text.includes(p) : p.test(text));

/** Installed once by vitest-setup.ts for every test file. */
export function installConsoleGuard(): void {
  const original = console.error;
  beforeEach(() => {
    state.expected = [];
    state.calls = [];
    console.error = (...args: unknown[]) => {
      const text = format(...args);
      state.calls.push(text);
      if (!state.expected.some((p) => matches(text, p))) original(...args);
    };
  });
  afterEach(() => {
    console.error = original;
    const unexpected = state.calls.filter((text) => !state.expected.some((p) => matches(text, p)));
    const missing = state.expected.filter((p) => !state.calls.some((text) => matches(text, p)));
    if (unexpected.length) {
      throw new Error(
        `console.error was called ${unexpected.length} time(s) without expectConsoleError():\n` +
          unexpected.map((t) => `  ${t.split('\n')[0]}`).join('\n'),
      );
    }
    if (missing.length) throw new Error(`expected a console.error matching ${missing.map(String).join(', ')}, none came`);
  });
}
