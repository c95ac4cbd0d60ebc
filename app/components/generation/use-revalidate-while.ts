import { useRevalidator } from '@remix-run/react';
import { useEffect } from 'react';

/**
 * Reloads the route's data every `ms` while `active` (a run in progress): progress without a
 * reload of the page, and never a second reload while one is under way.
 */
export function useRevalidateWhile(active: boolean, ms = 2000): void {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (revalidator.state === 'idle') revalidator.revalidate();
    }, ms);
    return () => clearInterval(timer);
  }, [active, ms, revalidator]);
}
