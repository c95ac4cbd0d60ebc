import { useId } from 'react';

/**
 * React's useId without its colons (`:R1:` → `R1`): an id that starts with a letter and holds only
 * letters and digits, so it is valid for HTML checkers and usable in a CSS selector as it is. The
 * same on the server and in the browser, as useId is.
 */
export function useDomId(): string {
  return useId().replace(/:/g, '');
}
