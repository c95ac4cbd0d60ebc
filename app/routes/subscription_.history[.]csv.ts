import type { LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { historyCsvLine } from '~/services/ledger-csv.server';
import { iterateHistory } from '~/services/ledger.server';
import { requireUser } from '~/services/sessions.server';

// The signed-in user's own credit history as CSV, oldest first, streamed a cursor page at a time.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const t = await getT(request, 'ledger');
  const encoder = new TextEncoder();
  const rows = iterateHistory(user.id);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A BOM so spreadsheet programs read the Chinese labels as UTF-8.
      controller.enqueue(encoder.encode(`\uFEFF${t('history.csvHeader')}\r\n`));
    },
    async pull(controller) {
      const next = await rows.next();
      if (next.done) return controller.close();
      controller.enqueue(
        encoder.encode(
          historyCsvLine(
            next.value,
            (k) => t(`history.kinds.${k}`),
            (b) => t(`history.buckets.${b}`),
          ),
        ),
      );
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${t('history.csvFile')}"`,
      'Cache-Control': 'private, no-store',
    },
  });
}
