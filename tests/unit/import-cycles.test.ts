import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No module of app/ reaches itself through its imports: a circle of imports that run makes the
// order of module start-up decide what a module sees, and ties services that should stand one on
// another. Type-only imports are erased when compiled, but a circle of them still ties two modules
// to each other for the reader, so they are held to the same rule. Like the floors of
// eslint.config.js, it fails on one.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Graph = Map<string, string[]>;

const statement = /^\s*(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"]([^'"]+)['"]/gm;

/** The specifiers of every import and re-export of a module, type-only ones included. */
export function allImports(source: string): string[] {
  return [...source.matchAll(statement)].map((m) => m[3]!);
}

/** The specifiers of the imports and re-exports of a module that are not type-only. */
export function runtimeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(statement)) {
    if (m[1]) continue; // import type / export type
    const clause = (m[2] ?? '').trim();
    const named = /^\{([^}]*)\}$/.exec(clause);
    // `import { type A, type B } from` is erased as a whole.
    if (named && named[1]!.split(',').every((n) => !n.trim() || n.trim().startsWith('type '))) continue;
    out.push(m[3]!);
  }
  return out;
}

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('~/')) base = path.join(root, 'app', spec.slice(2));
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const ext of ['', '.ts', '.tsx', '/index.ts', '/index.tsx']) {
    const file = base + ext;
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return null;
}

function appGraph(importsOf: (source: string) => string[] = runtimeImports): Graph {
  const graph: Graph = new Map();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name)) {
        const deps = importsOf(fs.readFileSync(file, 'utf8'))
          .map((spec) => resolve(file, spec))
          .filter((f): f is string => f !== null && f.startsWith(path.join(root, 'app') + path.sep));
        graph.set(path.relative(root, file), [...new Set(deps.map((d) => path.relative(root, d)))]);
      }
    }
  };
  walk(path.join(root, 'app'));
  return graph;
}

/** The strongly connected groups of more than one module, and modules that import themselves (Tarjan). */
export function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles in app/', () => {
  it('there are none', () => {
    const graph = appGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it('there are none through type-only imports either', () => {
    expect(circles(appGraph(allImports))).toEqual([]);
  });

  it('a planted circle is found, through a re-export too; type-only imports do not count', () => {
    const sources: Record<string, string> = {
      a: `import { b } from './b';\nimport type { D } from './d';`,
      b: `export { c } from './c';`,
      c: `import x, { y } from './a';`,
      d: `import { type A } from './a';`,
    };
    const graph: Graph = new Map(Object.entries(sources).map(([name, src]) => [name, runtimeImports(src).map((s) => s.slice(2))]));
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    const withTypes: Graph = new Map(Object.entries(sources).map(([name, src]) => [name, allImports(src).map((s) => s.slice(2))]));
    expect(circles(withTypes)).toEqual([['a', 'b', 'c', 'd']]);
  });
});
