import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { Form, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { cancelToast, RunProgressBar, runEndedToast } from '~/components/generation/progress-bar';
import { runUrl } from '~/components/generation/urls';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { showToast } from '~/components/ui/toast';
import { useRevalidateWhile } from '~/components/generation/use-revalidate-while';
import { getT } from '~/i18n.server';
import { RunLinksPanel } from '~/components/links/run-links-panel';
import { cancelRun } from '~/services/generation/cancel.server';
import { dropPlan, listRunPlans, replan, savePlan, writePlans, type PlanView } from '~/services/generation/plans.server';
import { PlanReview } from '~/components/generation/plan-review';
import { readPlanForm } from '~/http/plan-form.server';
import { getRunProgress, type RunProgress } from '~/services/generation/progress.server';
import { GenerationError, isUuid } from '~/services/generation/rules.server';
import {
  isRunPost,
  linkRunBySettings,
  removeLink,
  runLinkSettings,
  runLinksView,
  saveRunLinkSettings,
} from '~/services/internal-links.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { listSites } from '~/services/wordpress/sites.server';
import { readFormData } from '~/http/json-api.server';
import type { Translate } from '~/utils/auth-schemas';
import { relinkPostSchema, removeLinkSchema, runLinkSettingsSchema, runPageIntent } from '~/utils/link-schemas';
import { requireUser } from '~/services/sessions.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { rootT } from '~/utils/meta';
import { safeRedirect } from '~/utils/safe-redirect';
import { redirectWithToast } from '~/http/toast.server';
import { AppLink } from '~/components/ui/app-link';

// A run's progress page (/app/runs/{id}): where the browser lands after Start without JavaScript.
// While the run goes on it refreshes itself (a meta refresh inside <noscript>, to ?watch=1); when a
// watched run has ended it forwards to the Results tab with the 'Generation Complete' toast. With
// JavaScript it polls every 2 s instead. Another user's run is a 404.
// A text run that has ended with completed posts also shows its internal links:
// the run's link settings, "Link posts", and each post's proposed links to remove or re-link.

async function progressOr404(userId: string, id: string) {
  try {
    return await getRunProgress(userId, id);
  } catch (error) {
    if (error instanceof GenerationError && error.code === 'not_found') throw new Response('Not Found', { status: 404 });
    throw error;
  }
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const run = await progressOr404(userId, params.id ?? '');
  const watching = new URL(request.url).searchParams.get('watch') === '1';
  // Plans ready: the page itself is where they are reviewed.
  if (watching && run.status === 'planned') return redirect(runUrl(run.id));
  if (watching && run.status !== 'processing') {
    const t = await getT(request, 'workspace');
    return redirectWithToast(`/app?tab=results&run=${run.id}`, runEndedToast(t, run));
  }
  const [links, plans] = await Promise.all([
    linksOf(userId, run),
    run.type === 'text' ? listRunPlans(userId, run.id) : Promise.resolve([] as PlanView[]),
  ]);
  return json({ user, account, run, links, plans }, { headers: privatePageHeaders });
}

/** The internal-links review of an ended text run with completed posts (null: nothing to link). */
async function linksOf(userId: string, run: RunProgress) {
  if (run.type !== 'text' || run.status === 'processing' || run.completedPrompts === 0) return null;
  const [settings, posts, sites] = await Promise.all([runLinkSettings(userId, run.id), runLinksView(userId, run.id), listSites(userId)]);
  return { settings, posts, sites: sites.map((s) => ({ id: s.id, name: s.siteName, isDefault: s.isDefault })) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const runId = params.id ?? '';
  if (!isUuid(runId)) throw new Response('Not Found', { status: 404 });
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'workspace')) as Translate;
  const planIntent = formData.get('intent');
  if (planIntent === 'plan' || planIntent === 'plans-write') {
    return planAction(request, user.id, runId, formData, t);
  }
  const head = parseWithZod(formData, { schema: runPageIntent, disableAutoCoercion: true });
  const intent = head.status === 'success' ? head.value.intent : null;
  if (intent === 'cancel') {
    try {
      const run = await cancelRun(user.id, runId);
      // The Results tab's Cancel comes back to the tab as it was; the run page's own, to the run page.
      const returnTo = safeRedirect(formData.get('returnTo'), runUrl(run.id));
      return redirectWithToast(returnTo?.startsWith('/app?tab=results') ? returnTo : runUrl(run.id), cancelToast(t, run));
    } catch (error) {
      if (error instanceof GenerationError && error.code === 'not_found') throw new Response('Not Found', { status: 404 });
      throw error;
    }
  }

  // Internal links: the run must be the user's own (another user's run is a 404, as for the page).
  try {
    await runLinkSettings(user.id, runId);
  } catch (error) {
    if (error instanceof WordPressServiceError && error.code === 'not_found') throw new Response('Not Found', { status: 404 });
    throw error;
  }
  const back = runUrl(runId);
  // Without JavaScript the page comes back scrolled to the post acted on; with it (the hydrated
  // forms add stay=1) the page stays where it is.
  const scripted = formData.get('stay') === '1';
  const to = (hash: string) => (scripted ? back : `${back}${hash}`);
  const failed = (description: string) => redirectWithToast(back, { type: 'error', title: t('links.toasts.failed'), description });

  switch (intent) {
    case 'link-run': {
      const submission = parseWithZod(formData, { schema: runLinkSettingsSchema(t), disableAutoCoercion: true });
      if (submission.status !== 'success') return json({ intent, result: submission.reply() }, { status: 400 });
      const { intent: _intent, ...settings } = submission.value;
      try {
        await saveRunLinkSettings(user.id, runId, settings);
      } catch (error) {
        // The run is the user's (checked above): what is not found is the site.
        if (!(error instanceof WordPressServiceError && error.code === 'not_found')) throw error;
        return json(
          { intent, result: submission.reply({ fieldErrors: { siteId: [t('links.validation.siteNotFound')] } }) },
          { status: 400 },
        );
      }
      const count = await linkRunBySettings(user.id, runId);
      return redirectWithToast(
        to('#internal-links'),
        settings.enabled
          ? { type: 'success', title: t('links.toasts.linked'), description: t('links.toasts.linkedBody', { count }) }
          : { type: 'success', title: t('links.toasts.off'), description: t('links.toasts.offBody') },
      );
    }
    case 'relink-post': {
      const submission = parseWithZod(formData, { schema: relinkPostSchema(t), disableAutoCoercion: true });
      if (submission.status !== 'success') return failed(t('links.validation.post'));
      const { resultId } = submission.value;
      if (!(await isRunPost(user.id, runId, resultId))) return failed(t('links.validation.post'));
      const count = await linkRunBySettings(user.id, runId, { resultId });
      const { enabled } = await runLinkSettings(user.id, runId);
      return redirectWithToast(
        to(`#post-${resultId}`),
        enabled
          ? { type: 'success', title: t('links.toasts.postLinked'), description: t('links.toasts.linkedBody', { count }) }
          : { type: 'info', title: t('links.toasts.off'), description: t('links.toasts.offBody') },
      );
    }
    case 'remove-link': {
      const submission = parseWithZod(formData, { schema: removeLinkSchema(t), disableAutoCoercion: true });
      if (submission.status !== 'success') return failed(t('links.validation.link'));
      try {
        await removeLink(user.id, submission.value.linkId);
      } catch (error) {
        if (!(error instanceof WordPressServiceError && error.code === 'not_found')) throw error;
        return failed(t('links.validation.link'));
      }
      const post = formData.get('resultId');
      const hash = typeof post === 'string' && isUuid(post) ? `#post-${post}` : '';
      return redirectWithToast(to(hash), { type: 'success', title: t('links.toasts.removed'), description: t('links.toasts.removedBody') });
    }
    default:
      return failed(t('form.invalid'));
  }
}

/** The plan review's forms: one plan edited, saved, written, re-planned or dropped; or many written. */
async function planAction(request: Request, userId: string, runId: string, formData: FormData, t: Translate) {
  const back = runUrl(runId);
  if (formData.get('intent') === 'plans-write') {
    const ids = formData.get('which') === 'all' ? null : formData.getAll('resultIds').filter((v): v is string => typeof v === 'string');
    if (ids && ids.length === 0) return redirectWithToast(back, { type: 'error', title: t('plans.toasts.noneChosen') });
    const count = await writePlans(userId, runId, ids);
    return redirectWithToast(back, { type: 'success', title: t('plans.toasts.writing', { count }) });
  }
  const form = readPlanForm(formData, (await getT(request, 'generation')) as Translate, t('plans.newSection'));
  const to = formData.get('stay') === '1' ? back : `${back}#plan-${form.resultId}`;
  try {
    if (form.op === 'drop') {
      await dropPlan(userId, form.resultId);
      return redirectWithToast(to, { type: 'success', title: t('plans.toasts.dropped') });
    }
    if (form.op === 'replan') {
      await replan(userId, form.resultId);
      return redirectWithToast(to, { type: 'success', title: t('plans.toasts.replanning') });
    }
    if (!form.plan) return redirectWithToast(to, { type: 'error', title: t('plans.toasts.invalid'), description: form.error ?? '' });
    await savePlan(userId, form.resultId, form.plan);
    if (form.op === 'write') {
      const count = await writePlans(userId, runId, [form.resultId]);
      return redirectWithToast(to, { type: 'success', title: t('plans.toasts.writing', { count }) });
    }
    return redirectWithToast(to, { type: 'success', title: t('plans.toasts.saved') });
  } catch (error) {
    if (!(error instanceof GenerationError)) throw error;
    if (error.code === 'not_found') throw new Response('Not Found', { status: 404 });
    return redirectWithToast(back, { type: 'error', title: t('plans.toasts.notPlanned') });
  }
}

export default function RunProgressPage() {
  const { user, account, run, links, plans } = useLoaderData<typeof loader>();
  const { t } = useTranslation('workspace');
  const navigation = useNavigation();
  const processing = run.status === 'processing';
  const canceling = navigation.state !== 'idle' && navigation.formMethod === 'POST' && !navigation.formData?.get('intent');
  const previous = useRef(run.status);

  useRevalidateWhile(processing);

  useEffect(() => {
    if (previous.current === 'processing' && run.status !== 'processing' && run.status !== 'planned') {
      showToast(runEndedToast(t, run));
    }
    previous.current = run.status;
  }, [run, t]);

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      {/* Without the script the page refreshes itself while the run goes on, unless plans wait for
          review on it: a refresh would throw away an edit being typed (a reload shows the progress). */}
      {processing && run.plannedPrompts === 0 ? (
        <noscript>
          <meta httpEquiv="refresh" content={`2;url=${runUrl(run.id)}?watch=1`} />
        </noscript>
      ) : null}
      <div className="mx-auto flex max-w-2xl flex-col gap-6">
        <AppLink to="/app" className="text-sm font-semibold text-indigo-700 hover:underline">
          ← {t('progress.back')}
        </AppLink>
        <section
          aria-labelledby="run-title"
          className="flex flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8"
        >
          <div>
            <h1 id="run-title" className="text-2xl font-bold tracking-tight text-slate-900">
              {t('progress.title')}
            </h1>
            <p className="mt-1 text-sm font-medium text-slate-700" data-testid="run-status" aria-live="polite">
              {processing
                ? t('progress.running')
                : run.status === 'planned'
                  ? t('plans.ready', { count: run.plannedPrompts })
                  : run.status === 'canceled'
                    ? t('progress.canceled')
                    : t('progress.done')}
            </p>
          </div>
          <RunProgressBar run={run} />
          {processing && run.plannedPrompts === 0 ? <p className="text-xs text-slate-600">{t('progress.autoRefresh')}</p> : null}
          <div className="flex flex-wrap gap-3">
            <ButtonLink to={`/app?tab=results&run=${run.id}`}>{t('progress.viewResults')}</ButtonLink>
            {processing ? (
              <Form method="post">
                <Button type="submit" variant="secondary" pending={canceling}>
                  {canceling ? t('progress.canceling') : t('progress.cancel')}
                </Button>
              </Form>
            ) : (
              <ButtonLink to="/app" variant="secondary">
                {t('progress.newRun')}
              </ButtonLink>
            )}
          </div>
        </section>
        {plans.length > 0 ? <PlanReview runId={run.id} plans={plans} credits={plans[0]!.credits} /> : null}
        {links ? <RunLinksPanel runId={run.id} {...links} /> : null}
      </div>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'progress.title', 'workspace') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
