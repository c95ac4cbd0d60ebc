import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { CSV_MAX_BYTES, CSV_MAX_ROWS } from '~/catalogue';
import { csvErrorStatus, readCsvUpload } from '~/utils/csv-upload.server';
import { apiUser, inputsT, noStore } from '~/utils/input-api.server';
import { apiError, methodNotAllowed } from '~/utils/json-api.server';

// SPEC §7 POST /api/upload-csv: multipart with a csv file → { prompts }, plus the optional per-row
// columns (title, keywords, instructions) under `rows` and what was dropped.
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
  return noStore({ prompts, rows, totalRows, duplicates, emptyRows, tooLong, delimiter, encoding, column });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
