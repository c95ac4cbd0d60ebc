import type { LoaderFunctionArgs } from '@remix-run/node';
import { clientCatalogue } from '~/i18n.server';
import { languages, namespaces, type Language } from '~/i18n';

// GET /locales/{language}?ns=common,auth&v={hash}: the browser's catalogue of those namespaces as a
// script (see root.tsx; every namespace without ns). Under its current hash it never changes, so
// browsers keep it for a year.
export async function loader({ params, request }: LoaderFunctionArgs) {
  const language = params.language as Language;
  if (!languages.includes(language)) return new Response('Not Found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  const query = new URL(request.url).searchParams;
  const ns = query
    .get('ns')
    ?.split(',')
    .filter((n) => (namespaces as readonly string[]).includes(n));
  const { version, script } = clientCatalogue(language, ns?.length ? ns : namespaces);
  const current = query.get('v') === version;
  return new Response(script, {
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  });
}
