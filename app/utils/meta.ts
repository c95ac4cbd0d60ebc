import { defaultLanguage, type Language } from '~/i18n';
import { catalogueFor } from '~/utils/i18n-client';

// Meta functions run without hooks; they read the language from the root match and the catalogue
// from the same place the page's i18next instance does.
type Match = { id: string; data: unknown };

export function rootT(matches: readonly Match[], key: string, ns = 'common'): string {
  const data = matches.find((m) => m.id === 'root')?.data as { language?: Language } | undefined;
  let node: unknown = catalogueFor(data?.language ?? defaultLanguage)[ns];
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return typeof node === 'string' ? node : 'Postforge';
}
