import { createInstance, type i18n as I18n, type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { defaultLanguage, type Language } from '~/i18n';

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

/** A synchronous i18next instance, identical on the server render and at hydration. */
export function getI18n(language: Language): I18n {
  let instance = instances.get(language);
  if (!instance) {
    instance = createInstance();
    void instance.use(initReactI18next).init({
      lng: language,
      fallbackLng: defaultLanguage,
      resources: { [language]: catalogueFor(language) },
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      initImmediate: false,
      react: { useSuspense: false },
    });
    instances.set(language, instance);
  }
  return instance;
}
