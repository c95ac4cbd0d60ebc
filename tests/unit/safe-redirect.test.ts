import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeRedirect } from '../../app/utils/safe-redirect';

// Dot-segment inputs were once normalised into `//evil.test` AFTER the check.

const hostile = [
  '//evil.test',
  '/\\evil.test',
  '\\\\evil.test',
  '/.//evil.test',
  '/./\\evil.test',
  '/.\\/evil.test',
  '/%2e//evil.test',
  '/%2E//evil.test',
  '/%2e%2e//evil.test',
  '/..//evil.test',
  '/a/..//evil.test',
  '/a/../..//evil.test',
  '/a/%2e%2e//evil.test',
  '/././/evil.test',
  '/.%2f/evil.test',
  '/%2f/evil.test',
  '/%2F%2Fevil.test',
  '/%5cevil.test',
  '/%5C%5Cevil.test',
  '/\t/evil.test',
  '/\n/evil.test',
  '/\r\n/evil.test',
  '/ /evil.test'.replace(' ', '\u0000'),
  '/\u007f/evil.test',
  'https://evil.test',
  'http:/evil.test',
  'javascript:alert(1)',
  ' /app',
  'evil.test',
  './/evil.test',
  '/' + 'a'.repeat(2048),
];

describe('safeRedirect', () => {
  it.each(hostile)('refuses %j', (input) => {
    const out = safeRedirect(input);
    // Either refused, or (for inputs that really are same-site paths) never scheme-relative.
    if (out !== null) {
      expect(out).not.toMatch(/^[/\\]{2}/);
      expect(new URL(out, 'https://victim.test').origin).toBe('https://victim.test');
    }
    // A same-site answer keeps evil.test as a path segment at most (e.g. `/.%2f/evil.test`).
    if (out !== null) expect(out.startsWith('/') && !out.startsWith('/evil.test')).toBe(true);
  });

  it('refuses every dot-segment spelling that used to become //evil.test', () => {
    for (const input of ['/.//evil.test', '/%2e//evil.test', '/.\\/evil.test', '/a/..//evil.test']) expect(safeRedirect(input)).toBeNull();
  });

  it('keeps ordinary same-site paths, queries and hashes', () => {
    expect(safeRedirect('/app')).toBe('/app');
    expect(safeRedirect('/subscription?historyPage=2#credit-history')).toBe('/subscription?historyPage=2#credit-history');
    expect(safeRedirect('/a/./b/../c')).toBe('/a/c');
    expect(safeRedirect('/search?q=//evil.test')).toBe('/search?q=//evil.test');
    expect(safeRedirect(null)).toBe('/');
    expect(safeRedirect('', '/app')).toBe('/app');
  });

  it('never answers anything a browser resolves to another origin (property)', () => {
    const piece = fc.constantFrom('/', '\\', '.', '..', '%2e', '%2E', '%2f', '%5c', 'evil.test', 'a', '?', '#', '@', ':', '%00', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const out = safeRedirect('/' + parts.join(''));
        if (out === null) return;
        expect(out.startsWith('/')).toBe(true);
        expect(out).not.toMatch(/^[/\\]{2}/);
        expect(new URL(out, 'https://victim.test').origin).toBe('https://victim.test');
        // What the browser reads back is the answer itself.
        expect(safeRedirect(out)).toBe(out);
      }),
      { numRuns: 3000 },
    );
  });
});
