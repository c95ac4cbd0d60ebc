import { createInstance, type i18n as I18n, type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { defaultLanguage, type Language } from '~/i18n';

/**
 * A synchronous i18next instance from the catalogues the root loader sent, identical on the server
 * render and at hydration (no catalogue fetch, no flash of keys).
 */
// On the server the catalogue of a language never changes, so one instance per language serves
// every render (creating one per request cost about a millisecond of CPU).
const serverInstances = new Map<Language, I18n>();

export function createI18n(language: Language, resources: Resource[string]): I18n {
  if (typeof document === 'undefined') {
    let cached = serverInstances.get(language);
    if (!cached) serverInstances.set(language, (cached = buildInstance(language, resources)));
    return cached;
  }
  return buildInstance(language, resources);
}

function buildInstance(language: Language, resources: Resource[string]): I18n {
  const instance = createInstance();
  void instance.use(initReactI18next).init({
    lng: language,
    fallbackLng: defaultLanguage,
    resources: { [language]: resources },
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    initImmediate: false,
    react: { useSuspense: false },
  });
  return instance;
}
