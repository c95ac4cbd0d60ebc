import { describe, expect, it, vi } from 'vitest';
import { expectConsoleError } from '../support/console-guard';

// The guard of tests/support/console-guard.ts, installed for every file by vitest-setup.ts. Its
// verdict comes from an afterEach hook, which `it.fails` counts as the test's own failure: these
// cases pass only if the guard fails them.
describe('console.error guard', () => {
  it('lets a declared error through, without printing it', () => {
    expectConsoleError(/declared failure/);
    const stderr = vi.spyOn(process.stderr, 'write');
    console.error('a declared failure happened');
    expect(stderr).not.toHaveBeenCalled();
    stderr.mockRestore();
  });

  it.fails('fails a test that logs an undeclared error', () => {
    console.error('an undeclared failure (printed on purpose by the guard test)');
  });

  it.fails('fails a test that declares an error which never comes', () => {
    expectConsoleError('never logged');
  });
});
