import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { saveTopicDraft } from '~/services/topic-drafts.server';
import { CsvError } from '~/services/csv-import.server';
import { briefOf } from '~/utils/csv-file';
import { csvUploadLimited, readCsvUpload } from '~/http/csv-upload.server';
import { tooManyJson } from '~/http/rate-limit-response.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/upload-csv: multipart with a csv file → { prompts }, plus the optional per-row
// columns (title, keywords, instructions) under `rows` and what was dropped. When some row has them,
// they are also kept as a topic draft whose id (`draftId`) the workspace form posts with the topics
// (the rows can be larger than a form post may be), so that they reach each item's prompt.
// Uploads are limited per user and per client (429 with Retry-After).
export function action({ request, context }: ActionFunctionArgs) {
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      const limited = await csvUploadLimited(ctx.user.id, context);
      if (limited) return tooManyJson(request, limited);
      const result = await readCsvUpload(request);
      if (!result.ok) throw new CsvError(result.code);
      const { prompts, rows, totalRows, duplicates, emptyRows, tooLong, delimiter, encoding, column } = result.data;
      const draftId = rows.some((row) => briefOf(row)) ? await saveTopicDraft(ctx.user.id, { prompts, rows, source: 'csv' }) : null;
      return ctx.ok({ prompts, rows, draftId, totalRows, duplicates, emptyRows, tooLong, delimiter, encoding, column });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
