// Shared by server and client: the languages and how a browser's tag maps onto them.
export const languages = ['en', 'zh-HK'] as const;
export type Language = (typeof languages)[number];
export const defaultLanguage: Language = 'en';
export const namespaces = [
  'common',
  'auth',
  'ledger',
  'generation',
  'inputs',
  'billing',
  'wordpress',
  'workspace',
  'tokens',
  'developer',
] as const;
export type ClientNamespace = (typeof namespaces)[number];
/** Namespaces only the pages that name them load (the webhooks page): every other page stays as light. */
const optInNamespaces: readonly ClientNamespace[] = ['developer'];
/** What a page whose routes name no namespaces gets. */
export const defaultNamespaces: readonly ClientNamespace[] = namespaces.filter((ns) => !optInNamespaces.includes(ns));

/** What a route's `handle.i18n` holds: its namespaces, or a function of its loader's data giving them. */
export type RouteNamespaces = readonly ClientNamespace[] | ((data: unknown) => readonly ClientNamespace[]);

/**
 * The browser gets the catalogue of a page's namespaces only: each route names the namespaces it
 * (and the components it renders) uses in `handle.i18n`, and routes reached by client navigation
 * also export `clientLoader = withNamespaces(handle.i18n)` (utils/i18n-client.ts) so they arrive
 * before the render. A route that names none gets every namespace (safe, only heavier). A route whose
 * views need different ones names them with a function of its data.
 */
export function pageNamespaces(matches: readonly { handle?: unknown; data?: unknown }[]): ClientNamespace[] {
  const wanted = new Set<ClientNamespace>(['common']);
  for (const match of matches) {
    const named = (match.handle as { i18n?: RouteNamespaces } | undefined)?.i18n;
    const declared = typeof named === 'function' ? named(match.data) : named;
    if (!declared) {
      if (match !== matches[0]) return [...defaultNamespaces];
      continue; // the root declares nothing of its own
    }
    for (const ns of declared) wanted.add(ns);
  }
  return namespaces.filter((ns) => wanted.has(ns));
}
export const languageCookieName = 'language';

/** Maps a BCP 47 tag onto a supported language: any Chinese variant (zh, zh-Hant, zh-TW, zh-HK) is zh-HK. */
export function normalizeLanguage(tag: string | null | undefined): Language | null {
  if (!tag) return null;
  const t = tag.trim().toLowerCase();
  if (t === 'zh' || t.startsWith('zh-') || t.startsWith('zh_')) return 'zh-HK';
  if (t === 'en' || t.startsWith('en-') || t.startsWith('en_')) return 'en';
  return null;
}

/** The first supported language of an Accept-Language header, by quality. */
export function languageFromAcceptHeader(header: string | null): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag ?? '', q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const lang = normalizeLanguage(tag);
    if (lang) return lang;
  }
  return null;
}
