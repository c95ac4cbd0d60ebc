import { useLocation } from '@remix-run/react';

/**
 * The query parameter that opens the settings dialog (`?settings=1`), and the links that open and
 * close it. Their own module so that the root route and the header read them without putting the
 * dialog (and the model catalogue) into every page's script: the dialog is loaded when it opens.
 */
export const SETTINGS_PARAM = 'settings';

/** The current URL with the settings dialog opened or closed (the dialog's state lives in the URL). */
export function useSettingsLinks() {
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const isOpen = params.get(SETTINGS_PARAM) === '1';
  const open = new URLSearchParams(params);
  open.set(SETTINGS_PARAM, '1');
  const closed = new URLSearchParams(params);
  closed.delete(SETTINGS_PARAM);
  const withSearch = (p: URLSearchParams) => (p.toString() ? `${location.pathname}?${p}` : location.pathname);
  return { isOpen, openHref: withSearch(open), closeHref: withSearch(closed) };
}
