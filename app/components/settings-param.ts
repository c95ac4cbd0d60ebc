/**
 * The query parameter that opens the settings dialog (`?settings=1`). Its own module so that the
 * root route can read it without putting the dialog (and the model catalogue) into every page's script.
 */
export const SETTINGS_PARAM = 'settings';
