import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
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
import { cancelRun, GenerationError, getRunProgress } from '~/services/generation.server';
import { requireUser } from '~/services/sessions.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { rootT } from '~/utils/meta';
import { redirectWithToast } from '~/http/toast.server';

// A run's progress page (/app/runs/{id}): where the browser lands after Start without JavaScript.
// While the run goes on it refreshes itself (a meta refresh inside <noscript>, to ?watch=1); when a
// watched run has ended it forwards to the Results tab with the 'Generation Complete' toast. With
// JavaScript it polls every 2 s instead. Another user's run is a 404.

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
  if (watching && run.status !== 'processing') {
    const t = await getT(request, 'workspace');
    return redirectWithToast(`/app?tab=results&run=${run.id}`, runEndedToast(t, run));
  }
  return json({ user, account, run }, { headers: privatePageHeaders });
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const t = await getT(request, 'workspace');
  try {
    const run = await cancelRun(user.id, params.id ?? '');
    return redirectWithToast(runUrl(run.id), cancelToast(t, run));
  } catch (error) {
    if (error instanceof GenerationError && error.code === 'not_found') throw new Response('Not Found', { status: 404 });
    throw error;
  }
}

export default function RunProgressPage() {
  const { user, account, run } = useLoaderData<typeof loader>();
  const { t } = useTranslation('workspace');
  const navigation = useNavigation();
  const processing = run.status === 'processing';
  const canceling = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const previous = useRef(run.status);

  useRevalidateWhile(processing);

  useEffect(() => {
    if (previous.current === 'processing' && run.status !== 'processing') {
      showToast(runEndedToast(t, run));
    }
    previous.current = run.status;
  }, [run, t]);

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      {processing ? (
        <noscript>
          <meta httpEquiv="refresh" content={`2;url=${runUrl(run.id)}?watch=1`} />
        </noscript>
      ) : null}
      <div className="mx-auto flex max-w-2xl flex-col gap-6">
        <Link to="/app" className="text-sm font-semibold text-indigo-700 hover:underline">
          ← {t('progress.back')}
        </Link>
        <section
          aria-labelledby="run-title"
          className="flex flex-col gap-5 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8"
        >
          <div>
            <h1 id="run-title" className="text-2xl font-bold tracking-tight text-slate-900">
              {t('progress.title')}
            </h1>
            <p className="mt-1 text-sm font-medium text-slate-700" data-testid="run-status" aria-live="polite">
              {processing ? t('progress.running') : run.status === 'canceled' ? t('progress.canceled') : t('progress.done')}
            </p>
          </div>
          <RunProgressBar run={run} />
          {processing ? <p className="text-xs text-slate-600">{t('progress.autoRefresh')}</p> : null}
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
      </div>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'progress.title', 'workspace') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
