import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { CSV_MAX_BYTES, CSV_MAX_ROWS } from '~/catalogue';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { saveTopicDraft, TOPIC_DRAFT_PARAM } from '~/services/topic-drafts.server';
import { csvUploadLimited, readCsvUpload } from '~/http/csv-upload.server';
import { tooManyMessage } from '~/http/rate-limit-response.server';
import { redirectWithToast } from '~/http/toast.server';
import { csvLoadedSummary } from '~/utils/csv-file';

// The CSV upload without JavaScript: the drop zone is a plain file input in a form posting here.
// Success stores the topics and returns to the workspace in manual mode with them in the text area
// ready to review and start; a failure returns to the CSV view with its toast, as does an upload
// over the limits (counted with the JSON API's).
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const t = await getT(request, 'inputs');
  const limited = await csvUploadLimited(user.id, context);
  if (limited) {
    return redirectWithToast('/app?input=csv', {
      type: 'error',
      title: t('csv.failedTitle'),
      description: await tooManyMessage(request, limited),
    });
  }
  const result = await readCsvUpload(request);
  if (!result.ok) {
    const invalid = result.code === 'notCsv';
    return redirectWithToast('/app?input=csv', {
      type: 'error',
      title: t(invalid ? 'csv.invalidFileTitle' : 'csv.failedTitle'),
      description: t(`csv.errors.${result.code}`, { maxRows: CSV_MAX_ROWS.toLocaleString('en-US'), maxMb: CSV_MAX_BYTES / 1024 / 1024 }),
    });
  }
  const { prompts, rows, duplicates, emptyRows, tooLong } = result.data;
  const id = await saveTopicDraft(user.id, { prompts, rows, source: 'csv' });
  return redirectWithToast(`/app?${TOPIC_DRAFT_PARAM}=${id}`, {
    type: 'success',
    title: t('csv.uploadedTitle'),
    description: csvLoadedSummary(t, { topics: prompts.length, duplicates, emptyRows, tooLong }),
  });
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return redirect('/app?input=csv');
}
