import type { i18n as I18n, Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { ClientLoaderFunctionArgs } from '@remix-run/react';
import { defaultLanguage, defaultNamespaces, type ClientNamespace, type Language } from '~/i18n';
import { createTranslator } from '~/utils/translator';

type Catalogue = Resource[string];

// The catalogues of the browser build: on the server they are registered by entry.server; in the
// browser the static script /locales/{language} (loaded before the app's modules) puts them on window.
const serverCatalogues = new Map<Language, Catalogue>();
declare global {
  interface Window {
    __postforgeI18n?: Partial<Record<Language, Catalogue>>;
  }
}

export function registerCatalogue(language: Language, catalogue: Catalogue): void {
  serverCatalogues.set(language, catalogue);
}

export function catalogueFor(language: Language): Catalogue {
  if (typeof document === 'undefined') return serverCatalogues.get(language) ?? {};
  return window.__postforgeI18n?.[language] ?? {};
}

// A catalogue never changes while the process (or page) lives, so one instance per language serves
// every render (creating one per request cost about a millisecond of CPU on the server).
const instances = new Map<Language, I18n>();

/**
 * The page's translator, identical on the server render and at hydration. It is utils/translator's
 * small i18next stand-in (i18next itself stays on the server for actions and e-mail); typed as i18next
 * because react-i18next takes it in that shape.
 */
export function getI18n(language: Language): I18n {
  let instance = instances.get(language);
  if (!instance) {
    instance = createTranslator(language, catalogueFor(language), {
      defaultNS: 'common',
      // Namespaces added later (a route's own) re-render the components that use them.
      react: { useSuspense: false, bindI18nStore: 'added' },
    }) as unknown as I18n;
    initReactI18next.init(instance);
    instances.set(language, instance);
  }
  return instance;
}

/** Whether the page has every namespace of its language (the server always has). */
export function usesEveryNamespace(language: Language): boolean {
  if (typeof document === 'undefined') return true;
  const loaded = window.__postforgeI18n?.[language] ?? {};
  return defaultNamespaces.every((ns) => ns in loaded);
}

const pending = new Map<string, Promise<void>>();

/**
 * Loads the namespaces (all when none are named) of a language that the page does not have yet,
 * through the same cached catalogue script, and adds them to the page's i18next instance.
 */
export function ensureNamespaces(language: Language, wanted: readonly ClientNamespace[] = defaultNamespaces): Promise<void> {
  if (typeof document === 'undefined') return Promise.resolve();
  const have = window.__postforgeI18n?.[language] ?? {};
  const missing = wanted.filter((ns) => !(ns in have));
  if (!missing.length) return Promise.resolve();
  const key = `${language}:${missing.join(',')}`;
  // A load already under way that brings these namespaces (e.g. the rest of the catalogue) will do.
  let loading = [...pending].find(
    ([k]) =>
      k.startsWith(`${language}:`) &&
      missing.every((ns) =>
        k
          .slice(language.length + 1)
          .split(',')
          .includes(ns),
      ),
  )?.[1];
  if (!loading) {
    const current = document.querySelector<HTMLScriptElement>('script[src^="/locales/"]');
    const version = current ? new URL(current.src).searchParams.get('v') : null;
    loading = new Promise<void>((resolve) => {
      const script = document.createElement('script');
      // The CSP allows scripts with the page's nonce (browsers hide it from getAttribute, not from .nonce).
      script.nonce = current?.nonce ?? '';
      script.src = `/locales/${language}?ns=${missing.join(',')}${version ? `&v=${version}` : ''}`;
      script.onload = script.onerror = () => {
        const loaded = window.__postforgeI18n?.[language] ?? {};
        const instance = getI18n(language);
        for (const ns of missing) if (loaded[ns]) instance.addResourceBundle(language, ns, loaded[ns], true, true);
        pending.delete(key);
        resolve();
      };
      document.head.appendChild(script);
    });
    pending.set(key, loading);
  }
  return loading;
}

/** A route's clientLoader: its namespaces first, then its server data (routes with a server loader). */
export function withNamespaces(wanted: readonly ClientNamespace[]) {
  return async ({ serverLoader }: ClientLoaderFunctionArgs) => {
    await ensureNamespaces((document.documentElement.lang as Language) || defaultLanguage, wanted);
    return serverLoader();
  };
}
