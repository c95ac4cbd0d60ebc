import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { generateTitles } from '~/services/titles.server';
import { saveTopicDraft, TOPIC_DRAFT_PARAM } from '~/services/topic-drafts.server';
import { tooManyMessage } from '~/http/rate-limit-response.server';
import type { Translate } from '~/utils/auth-schemas';
import { readFormData } from '~/http/json-api.server';
import { titleRequestSchema } from '~/utils/title-request';
import { redirectWithToast } from '~/http/toast.server';

// The generate-titles button without JavaScript: it submits the generation form here (formAction).
// The titles replace the topics in the text area (a topic draft), with the SPEC's toasts.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  const t = (await getT(request, 'inputs')) as Translate;
  const fields = Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  const parsed = titleRequestSchema(t).safeParse({
    ...fields,
    keywords: fields.keywords ?? fields.prompts ?? '',
    multipleKeywords: undefined,
  });
  if (!parsed.success) {
    return redirectWithToast('/app', {
      type: 'error',
      title: t('titles.missingInputTitle'),
      description: parsed.error.issues[0]?.message ?? t('titles.missingInput'),
    });
  }
  const result = await generateTitles(user, parsed.data.keywords, parsed.data.options);
  if (!result.ok) {
    const description =
      result.reason === 'limited'
        ? await tooManyMessage(request, result.state)
        : t(result.reason === 'notConfigured' ? 'titles.notConfigured' : 'titles.failedBody');
    const draft = await saveTopicDraft(user.id, { prompts: parsed.data.keywords, source: 'titles' });
    return redirectWithToast(`/app?${TOPIC_DRAFT_PARAM}=${draft}`, { type: 'error', title: t('titles.failedTitle'), description });
  }
  const id = await saveTopicDraft(user.id, { prompts: result.titles, source: 'titles' });
  const many = parsed.data.multiple;
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
