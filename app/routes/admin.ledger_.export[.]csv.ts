import { PassThrough, Readable } from 'node:stream';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { parseExportForm } from '~/services/ledger-admin.server';
import { exportFormOf, requireAdmin } from '~/http/admin.server';
import { EXPORT_COLUMNS, exportRows } from '~/services/ledger-export.server';
import { getLogger } from '~/runtime/logger.server';

// The finance export as a download, streamed from Postgres's COPY in constant memory.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const { filter, errors } = await parseExportForm(exportFormOf(request));
  if (Object.keys(errors).length) return new Response(`Invalid ${Object.keys(errors).join(', ')}`, { status: 400 });
  const out = new PassThrough();
  exportRows(out, filter, { end: true }).catch((err) => {
    getLogger().error({ err }, 'ledger export failed');
    out.destroy(err);
  });
  return new Response(Readable.toWeb(out) as unknown as ReadableStream, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="ledger-export${filter.untilSeq ? `-${filter.untilSeq}` : ''}.csv"`,
      'Cache-Control': 'private, no-store',
      'X-Ledger-Columns': EXPORT_COLUMNS.join(','),
    },
  });
}
