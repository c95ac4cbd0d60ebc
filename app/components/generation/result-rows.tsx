import { useNavigation, useSearchParams } from '@remix-run/react';
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Translate } from '~/utils/generation-schema';
import { useTimeZone } from '~/utils/time-zone';
import type { ViewedImage } from './image-viewer';
import type { WordPressView } from './result-view';
import { EDIT_PARAM, FIX_PARAM } from './urls';
import { useHydrated } from './use-hydrated';

// What every row of the results list needs from the page, read once for the list. A page shows
// twenty rows, each made of five components: with a translation hook, the search parameters and the
// navigation state in every one of them, the rows were most of the page's render time; reading them
// once and passing them down through a context costs a row one hook.

export type ResultRows = {
  /** The workspace namespace's texts (other namespaces as `ns:key`). */
  t: Translate;
  language: string;
  timeZone: string;
  /** False in the server render and during hydration. */
  hydrated: boolean;
  /** The list as shown (filter, search, view, page): where a row's forms come back to. */
  returnTo: string;
  /** The result whose editor the URL opens (`edit=<id>`), and the fix whose confirm step it opens. */
  editing: string | null;
  askedFix: string | null;
  /** Whether a row's form for `intent` is being submitted. */
  busy: (id: string, intent: string) => boolean;
  onView: (image: ViewedImage) => void;
  wordpress?: WordPressView;
};

const ResultRowsContext = createContext<ResultRows | null>(null);

export function useResultRows(): ResultRows {
  const rows = useContext(ResultRowsContext);
  if (!rows) throw new Error('useResultRows outside a results list');
  return rows;
}

/** The results list's shared values for its rows. */
export function ResultRowsProvider({
  returnTo,
  onView,
  wordpress,
  children,
}: {
  returnTo: string;
  onView: (image: ViewedImage) => void;
  wordpress?: WordPressView;
  children: ReactNode;
}) {
  const { t, i18n } = useTranslation('workspace');
  const hydrated = useHydrated();
  const timeZone = useTimeZone();
  const navigation = useNavigation();
  const [params] = useSearchParams();
  const editing = params.get(EDIT_PARAM);
  const askedFix = params.get(FIX_PARAM);
  const submitting = navigation.state !== 'idle' ? navigation.formData : undefined;
  const value = useMemo<ResultRows>(
    () => ({
      t: t as Translate,
      language: i18n.language,
      timeZone,
      hydrated,
      returnTo,
      editing,
      askedFix,
      busy: (id, intent) => submitting?.get('id') === id && submitting.get('intent') === intent,
      onView,
      wordpress,
    }),
    [t, i18n.language, timeZone, hydrated, returnTo, editing, askedFix, submitting, onView, wordpress],
  );
  return <ResultRowsContext.Provider value={value}>{children}</ResultRowsContext.Provider>;
}
