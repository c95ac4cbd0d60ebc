import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { settingsDefaults } from '~/catalogue';
import { appSettings, lastUsed, lastUsedDefaults } from '~/utils/input-settings';

// The pages read the stored settings through a remembered parse: it must answer exactly what the
// schema's parse answers, for any stored JSON (valid, stale or broken), and each answer must be the
// caller's own (changing one never changes the next).

/** A stored value for a field: one that fits (another field's default), or any JSON at all. */
const storedValue = (fits: unknown[]) => fc.oneof(fc.constantFrom(...fits), fc.jsonValue());

function storedRows(defaults: Record<string, unknown>) {
  const fits = Object.values(defaults);
  const keys = Object.keys(defaults);
  return fc.oneof(fc.dictionary(fc.constantFrom(...keys, 'unknownField'), storedValue(fits)), fc.jsonValue(), fc.constant(undefined));
}

describe('remembered stored-settings parse', () => {
  for (const [name, schema, defaults] of [
    ['last-used values', lastUsed, lastUsedDefaults],
    ['application settings', appSettings, settingsDefaults],
  ] as const) {
    it(`${name}: the same answer as the schema, twice in a row, each a fresh object`, () => {
      fc.assert(
        fc.property(storedRows(defaults as Record<string, unknown>), (stored) => {
          const expected = schema.stored.parse(stored);
          const first = schema.read(stored);
          expect(first).toEqual(expected);
          (first as Record<string, unknown>).changed = 1;
          for (const key of Object.keys(first)) (first as Record<string, unknown>)[key] = 'changed';
          const second = schema.read(structuredClone(stored));
          expect(second).toEqual(expected);
          expect(second).not.toBe(first);
        }),
        { numRuns: 300 },
      );
    });
  }
});
