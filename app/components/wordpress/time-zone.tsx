import { useEffect, useState } from 'react';

/**
 * The user's time zone: the server renders with the `tz` cookie (UTC before the browser has told
 * it), the browser sets the cookie to its own zone so later pages and form posts use it.
 */
export function useTimeZone(serverZone: string): string {
  const [zone, setZone] = useState(serverZone);
  useEffect(() => {
    const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (own && own !== serverZone) {
      document.cookie = `tz=${encodeURIComponent(own)}; Path=/; Max-Age=31536000; SameSite=Lax`;
      setZone(own);
    }
  }, [serverZone]);
  return zone;
}

export function formatInstant(iso: string, zone: string, language: string): string {
  return new Date(iso).toLocaleString(language, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
}
