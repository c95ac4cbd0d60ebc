import { parseWithZod } from '@conform-to/zod';
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { generateTitles } from '~/services/titles.server';
import { saveTopicDraft, TOPIC_DRAFT_PARAM } from '~/services/topic-drafts.server';
import { tooManyMessage } from '~/http/rate-limit-response.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { titleRequestSchema } from '~/utils/title-request';
import { redirectWithToast } from '~/http/toast.server';

/**
 * The generation form as the titles button submits it: its topics (`prompts`) are the keywords, one
 * title per line being the form's own rule; a repeated field counts by its last value.
 */
const titleFormSchema = (t: Translate) =>
  z
    .record(z.unknown())
    .transform((payload) => {
      const fields = Object.fromEntries(
        Object.entries(payload)
          .map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v] as const)
          .filter((entry): entry is readonly [string, string] => typeof entry[1] === 'string'),
      );
      return { ...fields, keywords: fields.keywords ?? fields.prompts ?? '', multipleKeywords: undefined };
    })
    .pipe(titleRequestSchema(t));

// The generate-titles button without JavaScript: it submits the generation form here (formAction).
// The titles replace the topics in the text area (a topic draft), with the same toasts as the JSON path.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  const t = (await getT(request, 'inputs')) as Translate;
  const submission = parseWithZod(form, { schema: titleFormSchema(t), disableAutoCoercion: true });
  if (submission.status !== 'success') {
    return redirectWithToast('/app', {
      type: 'error',
      title: t('titles.missingInputTitle'),
      description: Object.values(submission.error ?? {}).find((messages) => messages?.length)?.[0] ?? t('titles.missingInput'),
    });
  }
  const input = submission.value;
  const result = await generateTitles(user, input.keywords, input.options);
  if (!result.ok) {
    const description =
      result.reason === 'limited'
        ? await tooManyMessage(request, result.state)
        : t(result.reason === 'notConfigured' ? 'titles.notConfigured' : 'titles.failedBody');
    const draft = await saveTopicDraft(user.id, { prompts: input.keywords, source: 'titles' });
    return redirectWithToast(`/app?${TOPIC_DRAFT_PARAM}=${draft}`, { type: 'error', title: t('titles.failedTitle'), description });
  }
  const id = await saveTopicDraft(user.id, { prompts: result.titles, source: 'titles' });
  const many = input.multiple;
  return redirectWithToast(`/app?${TOPIC_DRAFT_PARAM}=${id}`, {
    type: 'success',
    title: t(many ? 'titles.generatedManyTitle' : 'titles.generatedTitle'),
    description: many ? t('titles.generatedManyBody', { count: result.titles.length }) : t('titles.generatedBody'),
  });
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return redirect('/app');
}
