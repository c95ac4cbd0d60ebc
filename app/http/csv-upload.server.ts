import {
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
  type AppLoadContext,
} from '@remix-run/node';
import { CSV_MAX_BYTES } from '~/catalogue';
import type { CsvErrorCode, CsvImport } from '~/services/csv-import.server';
import { parseCsvUploadOffThread } from '~/services/csv-parse-threads.server';
import { firstLimited, hit, type LimitState } from '~/services/rate-limit.server';
import { clientKeyOf } from '~/http/rate-limit-response.server';
import { isCsvFile } from '~/utils/csv-file';

export type CsvUpload = { ok: true; data: CsvImport } | { ok: false; code: CsvErrorCode };

// Multipart overhead allowed on top of the file itself before the body is refused unread.
const ENVELOPE = 64 * 1024;

/**
 * Counts one upload against its user's and its client's limits (LIMITS.csvUser and csvIp, the JSON
 * API and the page form alike), before anything reads the body: the state to refuse with, or null.
 */
export async function csvUploadLimited(userId: string, context: AppLoadContext): Promise<LimitState | null> {
  return firstLimited(await Promise.all([hit('csvUser', userId), hit('csvIp', clientKeyOf(context))]));
}

/**
 * Reads the `file` part of a multipart request (POST /api/upload-csv; also the no-JavaScript form) and
 * parses it on a parsing thread (never on the event loop). The body is never buffered beyond the
 * 1 MB bound; any input gives a result, never a throw (only a parsing thread that fails does: a
 * fault of the server, not of the file).
 */
export async function readCsvUpload(request: Request): Promise<CsvUpload> {
  const length = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(length) && length > CSV_MAX_BYTES + ENVELOPE) return { ok: false, code: 'tooLarge' };
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) return { ok: false, code: 'missingFile' };
  let form: FormData;
  try {
    form = await unstable_parseMultipartFormData(request, unstable_createMemoryUploadHandler({ maxPartSize: CSV_MAX_BYTES + 1 }));
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) return { ok: false, code: 'tooLarge' };
    return { ok: false, code: 'invalidFormat' };
  }
  const file = form.get('file') ?? form.get('csv');
  if (!file || typeof file === 'string' || file.size === 0) return { ok: false, code: 'missingFile' };
  if (!isCsvFile({ name: file.name ?? '', type: file.type ?? '' })) return { ok: false, code: 'notCsv' };
  if (file.size > CSV_MAX_BYTES) return { ok: false, code: 'tooLarge' };
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch {
    return { ok: false, code: 'invalidFormat' };
  }
  return (await parseCsvUploadOffThread(bytes)).result;
}
