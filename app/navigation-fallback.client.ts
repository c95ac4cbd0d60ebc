// When the script of a link's page fails to load (a flaky network, a blocked chunk, a deploy that
// replaced it), Remix v2 (and React Router 7 alike) answers with `location.reload()`: the page the
// user was leaving comes back and the link never arrives. The user asked for the link's page, and
// the server renders it without that script, so the reload becomes a document navigation to the
// pending navigation's target. A form post's action has already been sent beside the script (the
// router runs both at once): it is not sent again; the browser goes where its answer redirects,
// once it has arrived. The Navigation API sees the reload before it happens; where a browser lacks
// it, Remix's reload stays as it was.

type PendingNavigation = {
  state: 'idle' | 'loading' | 'submitting';
  location?: { pathname: string; search: string; hash: string };
};

type NavigateEvent = Event & { navigationType: string; cancelable: boolean; userInitiated?: boolean };
type NavigationApi = { addEventListener(type: 'navigate', listener: (event: NavigateEvent) => void): void };

declare global {
  interface Window {
    navigation?: NavigationApi;
    __remixRouter?: { state: { navigation: PendingNavigation } };
  }
}

/** The last action sent as data (a form post with the page's script): where its answer redirects, if anywhere. */
let lastAction: Promise<string | null> | null = null;

function recordActions() {
  const send = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const answer = send(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // Remix's data requests carry ?_data=<route id>; a redirect comes back as X-Remix-Redirect.
    if (method !== 'GET' && new URL(url, window.location.href).searchParams.has('_data'))
      lastAction = answer.then(
        (response) => response.headers.get('X-Remix-Redirect'),
        () => null,
      );
    return answer;
  };
}

async function follow(pending: PendingNavigation) {
  if (pending.state === 'submitting') {
    // The action is on its way: its answer says where to go (no redirect: this page, read again).
    const to = lastAction ? await lastAction : null;
    window.location.assign(to ?? window.location.href);
    return;
  }
  // A link, a GET form, or the page to load after an action that has run.
  const { pathname, search, hash } = pending.location!;
  window.location.assign(`${pathname}${search}${hash}`);
}

export function followFailedNavigations() {
  if (!window.navigation) return;
  recordActions();
  window.navigation.addEventListener('navigate', (event) => {
    // Only a script's reload (not the browser's button) while the router was going somewhere.
    if (event.navigationType !== 'reload' || !event.cancelable || event.userInitiated) return;
    const pending = window.__remixRouter?.state.navigation;
    if (!pending || pending.state === 'idle' || !pending.location) return;
    event.preventDefault();
    void follow(pending);
  });
}
