import type { i18n as I18n } from 'i18next';

// A page calls t() a few hundred times (labels, select options, the header), mostly with the same
// static arguments on every request; i18next resolves each call afresh (key split, lookup, fallback,
// interpolation scan), which was about a tenth of the signed-in workspace's server CPU. The answer to
// a call that carries nothing but its key, namespace, language and a default text depends only on
// the catalogue, so it is remembered until the catalogue changes (a namespace added in the browser).
// Calls with values (count, names, dates) are not remembered: their answers vary, and personal
// values must not pile up in a process-wide map.

/** The option keys that getFixedT and a plain lookup carry; anything else is a value and skips the memo. */
const STATIC_OPTIONS = new Set(['lng', 'lngs', 'ns', 'keyPrefix', 'defaultValue']);

function memoKey(key: unknown, options: Record<string, unknown> | undefined): string | null {
  if (typeof key !== 'string' && !(Array.isArray(key) && key.every((k) => typeof k === 'string'))) return null;
  if (options) {
    for (const name in options) {
      if (!STATIC_OPTIONS.has(name)) return null;
      const value = options[name];
      if (value !== undefined && value !== null && typeof value !== 'string' && !Array.isArray(value)) return null;
    }
  }
  return JSON.stringify([key, options?.lng, options?.lngs, options?.ns, options?.keyPrefix, options?.defaultValue]);
}

/** Makes an instance remember its static translations (see above). */
export function memoiseTranslations(instance: I18n): void {
  const translate = instance.t.bind(instance) as (...args: unknown[]) => unknown;
  const memo = new Map<string, string>();
  const forget = () => memo.clear();
  instance.store.on('added', forget);
  instance.store.on('removed', forget);
  instance.on('languageChanged', forget);
  instance.t = ((...args: unknown[]) => {
    const [key, options] = args;
    const cacheKey =
      args.length <= 2 && (options === undefined || (typeof options === 'object' && options !== null))
        ? memoKey(key, options as Record<string, unknown> | undefined)
        : null;
    if (cacheKey === null) return translate(...args);
    const hit = memo.get(cacheKey);
    if (hit !== undefined) return hit;
    const answer = translate(...args);
    if (typeof answer === 'string') memo.set(cacheKey, answer);
    return answer;
  }) as I18n['t'];
}
