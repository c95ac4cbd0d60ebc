import { json, type LoaderFunctionArgs } from '@remix-run/node';
import { parseExportForm } from '~/services/ledger-admin.server';
import { exportFormOf, requireAdmin } from '~/http/admin.server';
import { exportManifest } from '~/services/ledger-export.server';

// The export's manifest (row count, sums per kind, last hash) for the same filter and `until`.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const { filter, errors } = await parseExportForm(exportFormOf(request));
  if (Object.keys(errors).length) return json({ error: `Invalid ${Object.keys(errors).join(', ')}` }, { status: 400 });
  return json(await exportManifest(filter), {
    headers: {
      'Content-Disposition': `attachment; filename="ledger-manifest${filter.untilSeq ? `-${filter.untilSeq}` : ''}.json"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
