import { useNavigate } from '@remix-run/react';
import { useEffect, type AnchorHTMLAttributes } from 'react';

// A link to a page of the app: a plain anchor, followed inside the app by one click handler for the
// whole document (useAppLinks, in the root), as a router link would be; the app's one way to link
// to its own pages (`reloadDocument` for a page to load as a new document). A router <Link>
// resolves its path, reads the location and sets up its click handler and prefetching in every
// render: with twenty of them in the header and footer and three more in each result row, links
// were a tenth of a page's server time. Without JavaScript it is the same anchor. `data-discover`
// lets Remix load the target route's module ahead, as it does for its own links.

const APP_LINK = 'data-app-link';
const KEEP_SCROLL = 'data-keep-scroll';
const REPLACE = 'data-replace';

export type AppLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & {
  /** An absolute path of the app, with its query and hash ("/app?tab=results"). */
  to: string;
  /** Keep the scroll position (a tab, a filter, a page of a list). */
  preventScrollReset?: boolean;
  /** Replace the current entry of the history instead of adding one. */
  replace?: boolean;
  /** Load the page as a new document (a page outside the app's routes, such as the API's documentation). */
  reloadDocument?: boolean;
};

export function AppLink({ to, preventScrollReset, replace, reloadDocument, children, ...props }: AppLinkProps) {
  if (reloadDocument)
    return (
      <a {...props} href={to}>
        {children}
      </a>
    );
  return (
    <a
      {...props}
      href={to}
      {...{ [APP_LINK]: '', 'data-discover': 'true' }}
      {...(preventScrollReset ? { [KEEP_SCROLL]: '' } : null)}
      {...(replace ? { [REPLACE]: '' } : null)}
    >
      {children}
    </a>
  );
}

/**
 * Follows the page's app links inside the app: a plain left click (not one with a modifier, nor one
 * a handler of its own cancelled) on a link that opens in this window.
 */
export function useAppLinks() {
  const navigate = useNavigate();
  useEffect(() => {
    const follow = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
      const link = event.target instanceof Element ? event.target.closest(`a[${APP_LINK}]`) : null;
      if (!link || link.hasAttribute('download') || (link.getAttribute('target') ?? '_self') !== '_self') return;
      // The address as the browser resolved it (a query-only link is relative to this page, not to
      // the route the handler sits in).
      const url = new URL((link as HTMLAnchorElement).href);
      if (url.origin !== location.origin) return;
      event.preventDefault();
      const target = `${url.pathname}${url.search}${url.hash}`;
      navigate(target, {
        // As a router link: a link to the page as it is replaces its entry.
        replace: link.hasAttribute(REPLACE) || target === `${location.pathname}${location.search}${location.hash}`,
        preventScrollReset: link.hasAttribute(KEEP_SCROLL),
      });
    };
    document.addEventListener('click', follow);
    return () => document.removeEventListener('click', follow);
  }, [navigate]);
}
