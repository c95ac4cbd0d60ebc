import type { LoaderFunctionArgs } from '@remix-run/node';
import { clientCatalogue } from '~/i18n.server';
import { languages, type Language } from '~/i18n';

// GET /locales/{language}?v={hash}: the browser's catalogue as a script (see root.tsx). Under its
// current hash it never changes, so browsers keep it for a year.
export async function loader({ params, request }: LoaderFunctionArgs) {
  const language = params.language as Language;
  if (!languages.includes(language)) return new Response('Not Found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  const { version, script } = clientCatalogue(language);
  const current = new URL(request.url).searchParams.get('v') === version;
  return new Response(script, {
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  });
}
