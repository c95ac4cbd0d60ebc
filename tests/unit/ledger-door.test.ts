import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { holdKey } from '../../app/services/ledger.server';

// One ledger door: only app/services/ledger.server.ts calls the ledger's SQL functions
// (db/functions/ledger.sql) and writes the hold-key format, so what the ledger tests exercise is
// what production runs. This reads the sources the way a reviewer would grep them.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOOR = 'app/services/ledger.server.ts';
// The verifier recomputes each row's hash with the same canonical form the writer used (a read).
const ALSO: Record<string, string[]> = { 'app/services/ledger-verify.server.ts': ['ledger_canonical'] };

function files(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) files(rel, out);
    else if (/\.(ts|tsx|sql)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

const ledgerSql = fs.readFileSync(path.join(root, 'db/functions/ledger.sql'), 'utf8');
const functions = [...new Set([...ledgerSql.matchAll(/CREATE OR REPLACE FUNCTION (ledger_\w+)/g)].map((m) => m[1]!))];
const sources = [...files('app'), ...files('jobs'), ...files('db/functions'), 'server.ts'].filter(
  (f) => f !== DOOR && f !== 'db/functions/ledger.sql',
);

describe('the ledger door', () => {
  it('ledger.sql defines the functions this test looks for', () => {
    expect(functions).toEqual(expect.arrayContaining(['ledger_reserve', 'ledger_resolve', 'ledger_extend_holds', 'ledger_transfer']));
  });

  it('no module but ledger.server.ts calls a ledger_* function', () => {
    const calls = sources.flatMap((file) => {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      return functions.filter((fn) => new RegExp(`\\b${fn}\\s*\\(`).test(text) && !ALSO[file]?.includes(fn)).map((fn) => `${file}: ${fn}`);
    });
    expect(calls).toEqual([]);
  });

  it('no module but ledger.server.ts writes the hold-key format', () => {
    const writers = sources.filter((file) => /:attempt:/.test(fs.readFileSync(path.join(root, file), 'utf8')));
    expect(writers).toEqual([]);
    expect(holdKey('0b7e6f3c-6f1a-4d55-9a57-0d1b8f4b7a11', 2)).toBe('result:0b7e6f3c-6f1a-4d55-9a57-0d1b8f4b7a11:attempt:2');
  });
});
