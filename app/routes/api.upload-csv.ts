import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { CSV_MAX_BYTES, CSV_MAX_ROWS } from '~/catalogue';
import { saveTopicDraft } from '~/services/topic-drafts.server';
import { briefOf } from '~/utils/csv-file';
import { csvErrorStatus, readCsvUpload } from '~/http/csv-upload.server';
import { apiUser, inputsT, noStore } from '~/http/input-api.server';
import { apiError, methodNotAllowed } from '~/http/json-api.server';

// SPEC §7 POST /api/upload-csv: multipart with a csv file → { prompts }, plus the optional per-row
// columns (title, keywords, instructions) under `rows` and what was dropped. When some row has them,
// they are also kept as a topic draft whose id (`draftId`) the workspace form posts with the topics
// (the rows can be larger than a form post may be), so that they reach each item's prompt.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const t = await inputsT(request);
  const result = await readCsvUpload(request);
  if (!result.ok) {
    const error = t(`csv.errors.${result.code}`, { maxRows: CSV_MAX_ROWS.toLocaleString('en-US'), maxMb: CSV_MAX_BYTES / 1024 / 1024 });
    return apiError(csvErrorStatus(result.code), error, { fields: { file: [error] } });
  }
  const { prompts, rows, totalRows, duplicates, emptyRows, tooLong, delimiter, encoding, column } = result.data;
  const draftId = rows.some((row) => briefOf(row)) ? await saveTopicDraft(user.id, { prompts, rows, source: 'csv' }) : null;
  return noStore({ prompts, rows, draftId, totalRows, duplicates, emptyRows, tooLong, delimiter, encoding, column });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
