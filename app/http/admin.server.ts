import { getUser, type SessionUser } from '~/services/sessions.server';
import type { ExportForm } from '~/services/ledger-admin.server';

// The HTTP side of the admin pages (/admin/ledger and its downloads).

/** The signed-in admin, or a 404 (the page does not exist for anyone else). */
export async function requireAdmin(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user || user.role !== 'admin') throw new Response('Not Found', { status: 404 });
  return user;
}

/** The export form's fields from the query string. */
export function exportFormOf(request: Request): ExportForm {
  const params = new URL(request.url).searchParams;
  return { from: params.get('from'), to: params.get('to'), user: params.get('user'), until: params.get('until') };
}
