// The page's translator: what react-i18next needs of an i18next instance, and the part of i18next's
// lookup the catalogues use, in about 2 KB instead of i18next's 14 KB gzip in every page's script
// (the landing page's JavaScript). The server render and hydration both use it, so they
// agree by construction; server-only messages (actions, e-mail, legal pages) keep i18next
// (i18n.server.ts).
//
// Supported, as i18next 23 does it with our options (one language per instance, keySeparator '.',
// nsSeparator ':', escapeValue false): `ns:key` prefixes, dotted paths (and keys that themselves
// contain dots), `{{name}}` and `{{a.b}}` interpolation (a missing value stays as written, one given
// as undefined becomes empty), plurals by Intl.PluralRules (`_zero` when count is 0, then `_one`,
// `_other`...), defaultValue, key arrays (first found wins), keyPrefix. Not supported, and kept out of
// the catalogues by tests/unit/translator.test.ts: `$t()` nesting, `{{x, format}}`, `{{- x}}`, context.

export type Catalogue = Record<string, unknown>;
type Options = Record<string, unknown>;
type Listener = (...args: unknown[]) => void;

class Events {
  private listeners = new Map<string, Set<Listener>>();
  on(events: string, fn: Listener) {
    for (const e of events.split(' ')) {
      if (!this.listeners.has(e)) this.listeners.set(e, new Set());
      this.listeners.get(e)!.add(fn);
    }
  }
  off(event: string, fn?: Listener) {
    if (fn) this.listeners.get(event)?.delete(fn);
    else this.listeners.delete(event);
  }
  emit(event: string, ...args: unknown[]) {
    for (const fn of [...(this.listeners.get(event) ?? [])]) fn(...args);
  }
}

/** i18next's heuristic: a key with a space or punctuation before its first '.' is text, not `ns:path`. */
function looksLikeObjectPath(key: string): boolean {
  const text = /( |,|\?|!|;)/;
  if (!text.test(key)) return true;
  const dot = key.indexOf('.');
  return dot > 0 && !text.test(key.substring(0, dot));
}

/** i18next's deepFind: a path whose parts may themselves contain the separator ("a.b" as one key). */
function deepFind(obj: unknown, path: string): unknown {
  if (!obj || typeof obj !== 'object') return undefined;
  const record = obj as Record<string, unknown>;
  if (record[path]) return record[path];
  const tokens = path.split('.');
  let current: unknown = obj;
  for (let i = 0; i < tokens.length;) {
    if (!current || typeof current !== 'object') return undefined;
    let next: unknown;
    let nextPath = '';
    for (let j = i; j < tokens.length; ++j) {
      if (j !== i) nextPath += '.';
      nextPath += tokens[j];
      next = (current as Record<string, unknown>)[nextPath];
      if (next !== undefined) {
        if (['string', 'number', 'boolean'].includes(typeof next) && j < tokens.length - 1) continue;
        i += j - i + 1;
        break;
      }
    }
    current = next;
  }
  return current;
}

function lookup(tree: unknown, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    if (node === undefined) break;
  }
  return node ? node : deepFind(tree, key);
}

const INTERPOLATION = /{{(.+?)}}/g;

function interpolate(text: string, data: Options): string {
  if (!text.includes('{{')) return text;
  return text.replace(INTERPOLATION, (match, name: string) => {
    const variable = name.trim();
    const value = variable.indexOf('.') < 0 ? data[variable] : deepFind(data, variable);
    if (value === undefined) return Object.prototype.hasOwnProperty.call(data, variable) ? '' : match;
    return value === null ? '' : String(value);
  });
}

export type Translator = ReturnType<typeof createTranslator>;

/** An instance for one language and its catalogue (namespace → texts); namespaces may be added later. */
export function createTranslator(language: string, catalogue: Catalogue, options: { defaultNS: string; react?: Record<string, unknown> }) {
  const data: Record<string, unknown> = { ...catalogue };
  const events = new Events();
  const store = new Events();
  const plurals = new Intl.PluralRules(language);

  /** The namespaces and path of a key: `ns:path` unless the key reads as text (i18next's rule). */
  function extract(rawKey: string, opts: Options): { key: string; namespaces: string[] } {
    const ns = (opts.ns as string | string[] | undefined) ?? options.defaultNS;
    if (rawKey.includes(':') && looksLikeObjectPath(rawKey)) {
      const parts = rawKey.split(':');
      const first = parts.shift()!;
      return { key: parts.join('.'), namespaces: [first] };
    }
    return { key: rawKey, namespaces: Array.isArray(ns) ? ns : [ns] };
  }

  function resolve(rawKey: string, opts: Options): unknown {
    const { key, namespaces } = extract(rawKey, opts);
    const count = opts.count;
    // Tried last to first: `_zero` (count 0), the plural form, the bare key.
    const candidates = [key];
    if (count !== undefined && typeof count !== 'string') {
      candidates.push(`${key}_${plurals.select(count as number)}`);
      if (count === 0) candidates.push(`${key}_zero`);
    }
    for (const ns of namespaces) {
      for (let i = candidates.length - 1; i >= 0; i--) {
        const found = cachedLookup(ns, candidates[i]!);
        if (found !== undefined && found !== null) return found;
      }
    }
    return undefined;
  }

  // A page looks up the same few hundred keys on every render; their texts change only when a
  // namespace is added. Keys come from code (some with a catalogue value inside), so the map stays
  // small; the cap is a guard.
  const lookups = new Map<string, unknown>();
  const plainTexts = new Map<string, string>();
  function cachedLookup(ns: string, key: string): unknown {
    const id = `${ns}:${key}`;
    if (lookups.has(id)) return lookups.get(id);
    if (lookups.size >= 10_000) lookups.clear();
    const text = lookup(data[ns], key);
    lookups.set(id, text);
    return text;
  }

  /** The text of the first key found (or the fallback), before its values are filled in. */
  function template(keys: string | string[], opts: Options): string {
    const list = Array.isArray(keys) ? keys : [String(keys)];
    let text: unknown;
    for (const key of list) {
      text = resolve(key, opts);
      if (text !== undefined) break;
    }
    // As i18next: messages name the last key of the list, without its namespace.
    const lastKey = extract(list[list.length - 1]!, opts).key;
    if (text !== null && typeof text === 'object') return `key '${lastKey} (${language})' returned an object instead of string.`;
    if (text === undefined) text = opts.defaultValue !== undefined ? opts.defaultValue : lastKey;
    return String(text);
  }

  function translate(keys: string | string[], opts: Options = {}): string {
    if (keys === undefined || keys === null) return '';
    return interpolate(template(keys, opts), opts);
  }

  // A key with values only (no namespace, key prefix or default of its own): its text depends on the
  // key and, with a count, on the count's plural form; it is kept per both and filled in each time.
  const templates = new Map<string, string>();
  function withValues(ns: string | readonly string[] | undefined, keyPrefix: string | undefined, key: string, values: Options): string {
    const count = values.count;
    const form = count !== undefined && typeof count !== 'string' ? `${count === 0 ? 'zero,' : ''}${plurals.select(count as number)}` : '';
    const id = `${String(ns)}\u0000${keyPrefix ?? ''}\u0000${key}\u0000${form}`;
    let text = templates.get(id);
    if (text === undefined) {
      if (templates.size >= 10_000) templates.clear();
      const lookup: Options = count === undefined ? {} : { count };
      if (ns !== undefined) lookup.ns = ns;
      text = template(keyPrefix ? `${keyPrefix}.${key}` : key, lookup);
      templates.set(id, text);
    }
    return interpolate(text, values);
  }

  const instance = {
    language,
    languages: [language],
    resolvedLanguage: language,
    isInitialized: true,
    options: { defaultNS: options.defaultNS, ns: [] as string[], react: options.react ?? {} },
    services: {},
    reportNamespaces: undefined as unknown,
    store: {
      on: (e: string, fn: Listener) => store.on(e, fn),
      off: (e: string, fn?: Listener) => store.off(e, fn),
    },
    on: (e: string, fn: Listener) => events.on(e, fn),
    off: (e: string, fn?: Listener) => events.off(e, fn),
    /** t(key), t(key, options), t(key, defaultValue[, options]), as i18next takes them. */
    t(key: string | string[], second?: string | Options, third?: Options): string {
      const opts = typeof second === 'string' ? { defaultValue: second, ...third } : (second ?? {});
      return instance.translate(key, opts);
    },
    translate,
    getFixedT(_lng: string | null, ns?: string | readonly string[], keyPrefix?: string) {
      return (key: string | string[], second?: string | Options, third?: Options) => {
        // A plain t('key') depends on the catalogue alone: its text is kept (most of a page's calls).
        if (second === undefined && typeof key === 'string') {
          const id = `${String(ns)}\u0000${keyPrefix ?? ''}\u0000${key}`;
          let text = plainTexts.get(id);
          if (text === undefined) {
            if (plainTexts.size >= 10_000) plainTexts.clear();
            text = instance.t(keyPrefix ? `${keyPrefix}.${key}` : key, ns === undefined ? {} : { ns });
            plainTexts.set(id, text);
          }
          return text;
        }
        if (typeof key === 'string' && typeof second === 'object' && second !== null && third === undefined) {
          if (!('ns' in second) && !('keyPrefix' in second) && !('defaultValue' in second)) return withValues(ns, keyPrefix, key, second);
        }
        const opts: Options = typeof second === 'string' ? { defaultValue: second, ...third } : { ...second };
        opts.ns ??= ns;
        const prefix = opts.keyPrefix === '' ? '' : ((opts.keyPrefix as string | undefined) ?? keyPrefix);
        const full = prefix ? (Array.isArray(key) ? key.map((k) => `${prefix}.${k}`) : `${prefix}.${key}`) : key;
        return instance.t(full, opts);
      };
    },
    // Every namespace an instance serves is in its catalogue (or arrives through addResourceBundle).
    hasLoadedNamespace: () => true,
    loadNamespaces: (_ns: unknown, done?: () => void) => {
      done?.();
      return Promise.resolve();
    },
    addResourceBundle(_lng: string, ns: string, texts: Catalogue, deep?: boolean, overwrite?: boolean) {
      const current = (data[ns] ?? {}) as Catalogue;
      data[ns] = deep ? merge(current, texts, overwrite ?? false) : { ...current, ...texts };
      lookups.clear();
      plainTexts.clear();
      templates.clear();
      store.emit('added', language, ns);
      return instance;
    },
    getResourceBundle: (_lng: string, ns: string) => data[ns],
  };
  return instance;
}

function merge(target: Catalogue, source: Catalogue, overwrite: boolean): Catalogue {
  const out: Catalogue = { ...target };
  for (const [k, v] of Object.entries(source)) {
    const t = out[k];
    if (v && typeof v === 'object' && t && typeof t === 'object') out[k] = merge(t as Catalogue, v as Catalogue, overwrite);
    else if (overwrite || !(k in out)) out[k] = v;
  }
  return out;
}
