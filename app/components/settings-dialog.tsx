import { useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { UrlDialog } from '~/components/ui/dialog';

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

/** SPEC §2 settings dialog. Its fields arrive with the settings feature; for now title and close. */
export function SettingsDialog() {
  const { t } = useTranslation();
  const { isOpen, closeHref } = useSettingsLinks();
  if (!isOpen) return null;
  return <UrlDialog title={t('settings.title')} closeTo={closeHref} closeLabel={t('settings.close')} />;
}
