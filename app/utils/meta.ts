import { defaultLanguage, type Language } from '~/i18n';
import { catalogueFor } from '~/utils/i18n-client';

// Meta functions run without hooks; they read the language from the root match and the catalogue
// from the same place the page's i18next instance does.
type Match = { id: string; data: unknown };

/**
 * A text of the page's language for a meta tag. `values` fill `{{name}}`; a numeric `count` picks the
 * plural form (`key_one`, `key_other`) as i18next does, so amounts come from the catalogue.
 */
export function rootT(matches: readonly Match[], key: string, ns = 'common', values?: Record<string, string | number>): string {
  const data = matches.find((m) => m.id === 'root')?.data as { language?: Language } | undefined;
  const language = data?.language ?? defaultLanguage;
  const parts = key.split('.');
  const last = parts.pop()!;
  let node: unknown = catalogueFor(language)[ns];
  for (const part of parts) node = (node as Record<string, unknown> | undefined)?.[part];
  const parent = node as Record<string, unknown> | undefined;
  const count = values?.count;
  const text =
    (typeof count === 'number' ? parent?.[`${last}_${new Intl.PluralRules(language).select(count)}`] : undefined) ?? parent?.[last];
  if (typeof text !== 'string') return 'Postforge';
  return values ? text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text;
}
