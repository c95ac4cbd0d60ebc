import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The zh-HK catalogues hold one word per concept (docs/glossary-zh-HK.md): a text that uses a
// rejected variant fails here, unless the variant is only part of a longer word the glossary allows.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const localesDir = path.join(root, 'app/locales');

type Rule = { concept: string; rejected: string[]; allowed: string[] };

/** The glossary's table: the backticked words of its "Not" and "Allowed" columns, per row. */
function glossary(): Rule[] {
  const lines = fs.readFileSync(path.join(root, 'docs/glossary-zh-HK.md'), 'utf8').split('\n');
  const rows = lines.filter((l) => l.startsWith('|')).map((l) => l.split('|').map((cell) => cell.trim()));
  const header = rows[0]!;
  const not = header.indexOf('Not');
  const allowed = header.indexOf('Allowed');
  const words = (cell: string | undefined) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return rows.slice(2).map((cells) => ({ concept: cells[1]!, rejected: words(cells[not]), allowed: words(cells[allowed]) }));
}

/** Each text of a catalogue with its key path (arrays, as in the legal pages, by index). */
function texts(node: unknown, prefix = ''): [string, string][] {
  if (typeof node === 'string') return [[prefix, node]];
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([k, v]) => texts(v, prefix ? `${prefix}.${k}` : k));
}

/** The occurrences of `word` in `text` that no allowed longer word covers. */
function rejectedUses(text: string, word: string, allowed: readonly string[]): number[] {
  const hits: number[] = [];
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const covered = allowed.some((long) => {
      for (let offset = long.indexOf(word); offset !== -1; offset = long.indexOf(word, offset + 1))
        if (at - offset >= 0 && text.startsWith(long, at - offset)) return true;
      return false;
    });
    if (!covered) hits.push(at);
  }
  return hits;
}

describe('the zh-HK glossary', () => {
  const rules = glossary();

  it('is read from the table: the concepts the catalogues must keep to one word', () => {
    const concepts = rules.map((r) => r.concept);
    for (const concept of ['Pro (the paid plan)', 'plan', 'credit(s)', 'top-up pack', 'topic (a line of the input)', 'featured image'])
      expect(concepts).toContain(concept);
    expect(rules.find((r) => r.concept === 'plan')?.rejected).toContain('方案');
    expect(rules.find((r) => r.concept.startsWith('run'))?.allowed).toContain('工作天');
    // Every allowed word contains a rejected one of its row (otherwise it allows nothing).
    for (const rule of rules)
      for (const long of rule.allowed)
        expect(
          rule.rejected.some((w) => long.includes(w)),
          long,
        ).toBe(true);
  });

  it('tells a rejected word from a longer allowed word that contains it', () => {
    const allowed = ['工作區', '工作天', '在家工作'];
    expect(rejectedUses('兩個工作天內回覆', '工作', allowed)).toEqual([]);
    expect(rejectedUses('返回工作區', '工作', allowed)).toEqual([]);
    expect(rejectedUses('在家工作的效率貼士', '工作', allowed)).toEqual([]);
    expect(rejectedUses('找不到工作。', '工作', allowed)).toEqual([3]);
    expect(rejectedUses('工作天之後的工作', '工作', allowed)).toEqual([6]);
  });

  const files = fs.readdirSync(path.join(localesDir, 'zh-HK')).filter((f) => f.endsWith('.json'));
  it.each(files)('zh-HK/%s uses no rejected variant', (file) => {
    const catalogue = JSON.parse(fs.readFileSync(path.join(localesDir, 'zh-HK', file), 'utf8')) as unknown;
    const found: string[] = [];
    for (const [key, text] of texts(catalogue))
      for (const rule of rules)
        for (const word of rule.rejected)
          if (rejectedUses(text, word, rule.allowed).length) found.push(`${key}: "${word}" (${rule.concept}) in "${text}"`);
    expect(found).toEqual([]);
  });
});
