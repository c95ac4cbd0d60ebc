import { useNavigate } from '@remix-run/react';
import type { MouseEvent } from 'react';

/**
 * The click handler of a plain `<a href data-discover>` that the client router follows as Remix's
 * <Link> does (a plain left click without modifier keys, no other target, no download). One per
 * component for all of its links: a <Link> runs its own hooks (href resolution, click handler,
 * prefetch behaviour) for every link on every server render, ~5–8 µs each, which a list of rows
 * with two links each pays forty times. `data-discover` keeps Remix's route discovery for it, as a
 * <Link> has it.
 */
export function useFollowLink() {
  const navigate = useNavigate();
  return (event: MouseEvent<HTMLAnchorElement>) => {
    const link = event.currentTarget;
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
    if ((link.target || '_self') !== '_self' || link.hasAttribute('download')) return;
    event.preventDefault();
    navigate(link.getAttribute('href')!);
  };
}
