import type { ServerBuild } from '@remix-run/node';

/**
 * The build seen as two: the JSON API's routes (`app/routes/api.*`, every one under `/api`) and the
 * pages. Remix builds its route objects and matches a URL against every route of its build on each
 * request, several times (the server's match, the data query, the render's router), so a page
 * request paid for the 48 API routes it can never match, and an API call for the 33 pages: about
 * a twentieth of a signed-in page's CPU. server.ts gives each path prefix its own handler. The root
 * route stays in both: every route hangs from it.
 */
export type SplitBuild = { api: ServerBuild; pages: ServerBuild };

const isApiRoute = (id: string) => id.startsWith('routes/api.');

/** `/api` and everything under it is the API's; every other path a page's (or a 404 page). */
export const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

function withRoutes(build: ServerBuild, keep: (id: string) => boolean): ServerBuild {
  const pick = <T>(routes: Record<string, T>) => Object.fromEntries(Object.entries(routes).filter(([id]) => id === 'root' || keep(id)));
  return {
    ...build,
    routes: pick(build.routes),
    assets: { ...build.assets, routes: pick(build.assets.routes) },
  };
}

export function splitApiRoutes(build: ServerBuild): SplitBuild {
  return { api: withRoutes(build, isApiRoute), pages: withRoutes(build, (id) => !isApiRoute(id)) };
}
