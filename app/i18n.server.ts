import crypto from 'node:crypto';
import { RemixI18Next } from 'remix-i18next/server';
import enAuth from './locales/en/auth.json';
import enCommon from './locales/en/common.json';
import enEmail from './locales/en/email.json';
import enLedger from './locales/en/ledger.json';
import enGeneration from './locales/en/generation.json';
import enInputs from './locales/en/inputs.json';
import enBilling from './locales/en/billing.json';
import enWordpress from './locales/en/wordpress.json';
import enWorkspace from './locales/en/workspace.json';
import enLegal from './locales/en/legal.json';
import enDeveloper from './locales/en/developer.json';
import enTokens from './locales/en/tokens.json';
import zhAuth from './locales/zh-HK/auth.json';
import zhCommon from './locales/zh-HK/common.json';
import zhEmail from './locales/zh-HK/email.json';
import zhLedger from './locales/zh-HK/ledger.json';
import zhGeneration from './locales/zh-HK/generation.json';
import zhInputs from './locales/zh-HK/inputs.json';
import zhBilling from './locales/zh-HK/billing.json';
import zhWordpress from './locales/zh-HK/wordpress.json';
import zhWorkspace from './locales/zh-HK/workspace.json';
import zhLegal from './locales/zh-HK/legal.json';
import zhDeveloper from './locales/zh-HK/developer.json';
import zhTokens from './locales/zh-HK/tokens.json';
import {
  defaultLanguage,
  languageCookieName,
  languageFromAcceptHeader,
  languages,
  namespaces,
  normalizeLanguage,
  type Language,
} from './i18n';
import { readCookie } from './runtime/cookies.server';

// Catalogues stay on the server; a page receives only its own language's (see root loader).
export const resources = {
  en: {
    common: enCommon,
    auth: enAuth,
    email: enEmail,
    ledger: enLedger,
    generation: enGeneration,
    inputs: enInputs,
    billing: enBilling,
    wordpress: enWordpress,
    workspace: enWorkspace,
    legal: enLegal,
    developer: enDeveloper,
    tokens: enTokens,
  },
  'zh-HK': {
    common: zhCommon,
    auth: zhAuth,
    email: zhEmail,
    ledger: zhLedger,
    generation: zhGeneration,
    inputs: zhInputs,
    billing: zhBilling,
    wordpress: zhWordpress,
    workspace: zhWorkspace,
    legal: zhLegal,
    developer: zhDeveloper,
    tokens: zhTokens,
  },
} as const;

/** The Set-Cookie that remembers a language choice (plain value, readable by the page's script too). */
export function languageCookieHeader(language: Language): string {
  return `${languageCookieName}=${language}; Path=/; Max-Age=${60 * 60 * 24 * 365}; SameSite=Lax`;
}

/** The language of a request from its Cookie and Accept-Language headers; a malformed cookie is ignored. */
export function languageFromHeaders(cookieHeader: string | null | undefined, acceptLanguage: string | null | undefined): Language {
  return (
    normalizeLanguage(readCookie(cookieHeader, languageCookieName)) ?? languageFromAcceptHeader(acceptLanguage ?? null) ?? defaultLanguage
  );
}

/** Cookie choice first, then Accept-Language, then English. */
export async function detectLanguage(request: Request): Promise<Language> {
  return languageFromHeaders(request.headers.get('Cookie'), request.headers.get('Accept-Language'));
}

export const i18next = new RemixI18Next({
  detection: {
    supportedLanguages: [...languages],
    fallbackLanguage: defaultLanguage,
    order: ['custom'],
    findLocale: detectLanguage,
  },
  i18next: {
    supportedLngs: [...languages],
    fallbackLng: defaultLanguage,
    defaultNS: 'common',
    resources,
    interpolation: { escapeValue: false },
  },
});

/** A translator for server-side messages (action errors, e-mail) in the request's language. */
export async function getT(requestOrLanguage: Request | Language, ns: Namespace = 'common') {
  const language = typeof requestOrLanguage === 'string' ? requestOrLanguage : await detectLanguage(requestOrLanguage);
  return i18next.getFixedT(language, ns);
}

export type Namespace = keyof (typeof resources)['en'];

/** What the browser may get: every namespace but the e-mail texts. */
export function clientResources(language: Language) {
  const { email: _email, legal: _legal, ...client } = resources[language];
  return client;
}

/** The version of a language's browser catalogue: a hash of all its namespaces, so any change busts caches. */
const versions = new Map<Language, string>();
export function catalogueVersion(language: Language): string {
  let version = versions.get(language);
  if (!version) {
    version = crypto
      .createHash('sha256')
      .update(JSON.stringify(clientResources(language)))
      .digest('hex')
      .slice(0, 12);
    versions.set(language, version);
  }
  return version;
}

// The browser's catalogue is a static script per language and set of namespaces, cached for good
// under the version, instead of riding along in every page's loader data. It merges into what the
// page has already loaded, so a route reached later can add its namespaces.
const scripts = new Map<string, string>();
export function clientCatalogue(language: Language, wanted: readonly string[] = namespaces): { version: string; script: string } {
  const all = clientResources(language) as Record<string, unknown>;
  const ns = namespaces.filter((n) => wanted.includes(n) && n in all);
  const key = `${language}:${ns.join(',')}`;
  let script = scripts.get(key);
  if (!script) {
    const body = JSON.stringify(Object.fromEntries(ns.map((n) => [n, all[n]])));
    // Escapes keep the JSON safe inside a script whatever the catalogue holds.
    const safe = body
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029');
    script = `(function(w){var c=w.__postforgeI18n=w.__postforgeI18n||{};var l=c[${JSON.stringify(language)}]=c[${JSON.stringify(language)}]||{};var n=${safe};for(var k in n)l[k]=n[k];})(window);`;
    scripts.set(key, script);
  }
  return { version: catalogueVersion(language), script };
}
