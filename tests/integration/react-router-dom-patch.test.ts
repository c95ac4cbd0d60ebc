/**
 * The patch of react-router-dom (patches/react-router-dom+6.30.4.patch, docs/development.md "Patched packages"):
 * a static router converts a routes array into its data routes once, not on every server render,
 * and its matches still point at those data routes.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
type DataRoute = { id: string; hasErrorBoundary?: boolean; children?: DataRoute[] };
type StaticRouter = { routes: DataRoute[]; state: { matches: { route: DataRoute }[] } };
// The CommonJS build, which @remix-run/react's server build requires.
const { createStaticHandler, createStaticRouter } = require('react-router-dom/server.js') as {
  createStaticHandler: (routes: unknown[]) => { query: (r: Request) => Promise<unknown> };
  createStaticRouter: (routes: unknown[], context: unknown) => StaticRouter;
};

const tree = () => [
  {
    id: 'root',
    path: '/',
    children: [
      { id: 'routes/_index', index: true },
      { id: 'routes/about', path: 'about' },
    ],
  },
];

describe('patched react-router-dom', () => {
  it('converts a routes array once, matches point at its data routes, another array is converted anew', async () => {
    const routes = tree();
    const context = await createStaticHandler(tree()).query(new Request('http://localhost/about'));
    const first = createStaticRouter(routes, context);
    const second = createStaticRouter(routes, context);
    // Unpatched, every render gets a new copy of the whole tree.
    expect(second.routes).toBe(first.routes);
    expect(second.state.matches.map((m) => m.route.id)).toEqual(['root', 'routes/about']);
    const about = second.routes[0]!.children!.find((r) => r.id === 'routes/about');
    expect(second.state.matches[1]!.route).toBe(about);
    expect(about).toMatchObject({ id: 'routes/about', hasErrorBoundary: false });
    const other = createStaticRouter(tree(), context);
    expect(other.routes).not.toBe(first.routes);
    expect(other.routes).toEqual(first.routes);
  });
});
