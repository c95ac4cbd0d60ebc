import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The transaction rule (db/client.ts): a function that reads or writes takes the pool or the
// caller's transaction as its LAST parameter, so every call joins a transaction the same way.
// This reads the services, the queue, the worker and the CLI and names every function that breaks it.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['app/services', 'app/queue', 'app/http', 'app/cli', 'jobs'];
const DB_TYPE = /^(Db|Sql|TransactionSql|postgres\.Sql|postgres\.TransactionSql)\b/;

function files(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) files(rel, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** `file:line name(params)` for every function whose database parameter is not its last. */
function offenders(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node)) {
      const params = node.parameters;
      const at = params.findIndex((p) => ['db', 'tx'].includes(p.name.getText(src)) || (p.type && DB_TYPE.test(p.type.getText(src))));
      if (at >= 0 && at < params.length - 1) {
        const name = node.name?.getText(src) ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(src) : '(anonymous)');
        const line = src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1;
        found.push(`${file}:${line} ${name}(${params.map((p) => p.name.getText(src)).join(', ')})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return found;
}

describe('db is the last parameter', () => {
  it('of every function in the services, the queue, the route glue, the CLI and the worker', () => {
    const all = DIRS.flatMap((dir) => files(dir)).flatMap((f) => offenders(f, fs.readFileSync(path.join(root, f), 'utf8')));
    expect(all).toEqual([]);
  });

  it('the check sees a function that breaks it', () => {
    expect(offenders('x.ts', 'export async function f(db: Db = sql, userId: string) {}')).toEqual(['x.ts:1 f(db, userId)']);
    expect(offenders('x.ts', 'const g = async (tx: TransactionSql, id: string) => id;')).toEqual(['x.ts:1 g(tx, id)']);
    expect(offenders('x.ts', 'export async function h(userId: string, db: Db = sql) {}')).toEqual([]);
  });
});
