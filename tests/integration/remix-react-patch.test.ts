/**
 * The patch of @remix-run/react (patches/@remix-run+react+2.17.5.patch, docs/development.md "Patched packages"):
 * RemixServer builds the server routes of a build once, not on every render, renders the same
 * page, and builds them again for other route modules (a new build).
 */
import { createRequire } from 'node:module';
import { createElement, type ComponentType } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// The CommonJS build, which Node loads on the server (the server build imports @remix-run/react by its main field).
const { RemixServer } = require('@remix-run/react/dist/server.js') as {
  RemixServer: ComponentType<{ context: unknown; url: string }>;
};
const { createStaticHandler } = require('@remix-run/router') as {
  createStaticHandler: (routes: unknown[]) => { query: (r: Request) => Promise<unknown> };
};

type ManifestRoute = { id: string; parentId?: string; path?: string; index?: boolean; hasLoader: boolean };

/** A two-route manifest whose fields count their reads (building server routes reads every one). */
function countedManifest() {
  let reads = 0;
  const route = (fields: ManifestRoute) => {
    const r = {} as Record<string, unknown>;
    for (const [key, value] of Object.entries({ caseSensitive: undefined, hasClientLoader: false, ...fields })) {
      Object.defineProperty(r, key, {
        enumerable: true,
        get: () => {
          reads++;
          return value;
        },
      });
    }
    return r;
  };
  const routes = {
    root: route({ id: 'root', path: '', hasLoader: false }),
    'routes/_index': route({ id: 'routes/_index', parentId: 'root', index: true, hasLoader: false }),
  };
  return { routes, reads: () => reads };
}

async function render(manifestRoutes: Record<string, unknown>, modules: Record<string, unknown>): Promise<string> {
  const handler = createStaticHandler([{ id: 'root', path: '/', children: [{ id: 'routes/_index', index: true }] }]);
  const staticHandlerContext = await handler.query(new Request('http://localhost/'));
  const context = {
    manifest: { routes: manifestRoutes, entry: { module: '/entry.js', imports: [] }, url: '/manifest.js', version: '1' },
    routeModules: { ...modules },
    future: {},
    isSpaMode: false,
    staticHandlerContext,
    serverHandoffString: '{}',
    serializeError: (e: Error) => ({ message: e.message }),
    renderMeta: {},
  };
  return renderToString(createElement(RemixServer, { context, url: 'http://localhost/' }));
}

describe('patched @remix-run/react', () => {
  it('builds the server routes once per build, renders alike, and again for new route modules', async () => {
    const { Outlet } = require('@remix-run/react') as { Outlet: ComponentType };
    const modules = {
      root: { default: () => createElement('main', null, 'root ', createElement(Outlet)) },
      'routes/_index': { default: () => createElement('p', null, 'index page') },
    };
    const { routes, reads } = countedManifest();
    const first = await render(routes, modules);
    expect(first).toContain('<main>root <p>index page</p></main>');
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    // Unpatched, every render reads each manifest route's fields again.
    expect(await render(routes, modules)).toBe(first);
    expect(await render(routes, modules)).toBe(first);
    expect(reads() - afterFirst).toBe(0);
    // Another build's modules (same manifest object, as a dev rebuild could give) are built anew.
    const rebuilt = { ...modules, 'routes/_index': { default: () => createElement('p', null, 'rebuilt page') } };
    expect(await render(routes, rebuilt)).toContain('<p>rebuilt page</p>');
    expect(reads()).toBeGreaterThan(afterFirst);
  });
});
