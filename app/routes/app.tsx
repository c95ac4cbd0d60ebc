import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { useActionData, useLoaderData, useNavigate, useSearchParams, type ClientLoaderFunctionArgs } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { defaultGenerationValues } from '~/components/generation/defaults';
import { CONFIRMED_FIELD, confirmedValue, GenerationForm } from '~/components/generation/generation-form';
import { resultsHref, type ResultsFilter, type ResultsView } from '~/components/generation/urls';
import { onDemand, serverRendered } from '~/components/on-demand';
import { runEndedToast } from '~/components/generation/progress-bar';
import { Badge } from '~/components/ui/badge';
import { showToast } from '~/components/ui/toast';
import { isPro } from '~/catalogue';
import { getT } from '~/i18n.server';
import { maskedApiKeys } from '~/services/api-keys.server';
import { getLatestRun, getRunProgress } from '~/services/generation/progress.server';
import { previewRunFor, quoteRun, startRunFor } from '~/services/generation/start.server';
import { GenerationError, generationConfig } from '~/services/generation/rules.server';
import { BRIEF_DRAFT_FIELD, useWorkspaceInputTools } from '~/components/inputs/workspace-input-tools';
import { useRevalidateWhile } from '~/components/generation/use-revalidate-while';
import { saveLastUsed } from '~/services/user-settings.server';
import { loadTopicDraft, TOPIC_DRAFT_PARAM } from '~/services/topic-drafts.server';
import { briefsByTopic } from '~/utils/csv-file';
import { inputInitialValues, loadInputTools } from '~/http/input-tools.server';
import { getLogger } from '~/runtime/logger.server';
import { countCompleted, listResults } from '~/services/results.server';
import { requireUser } from '~/services/sessions.server';
import { integrationOverview } from '~/services/wordpress/overview.server';
import { publicationsAndHolds, publicationView } from '~/services/wordpress/publications.server';
import { listSites } from '~/services/wordpress/sites.server';
import { readerTimeZone } from '~/http/time-zone.server';
import { getAccountSummary, privatePageHeaders, requirePageShell } from '~/http/account.server';
import type { Translate } from '~/utils/generation-schema';
import { generationFormSchema, lastUsedFromForm, parseWithZod, resultsQuerySchema } from '~/http/workspace-form.server';
import { readFormData } from '~/http/json-api.server';
import { explainError } from '~/http/errors.server';
import { rootT } from '~/utils/meta';
import { defaultNamespaces, type ClientNamespace } from '~/i18n';
import { withNamespaces } from '~/utils/i18n-client';
import { AppLink } from '~/components/ui/app-link';

const tabs = ['input', 'results', 'wordpress'] as const;
type Tab = (typeof tabs)[number];

// The Results and WordPress tabs come with their page from the server; the browser loads their
// script when one is first shown (on the way there from the tab's link), so the Input tab's first
// load does not carry them.
const tabParts = {
  results: onDemand(() => import('~/components/generation/results-panel')),
  wordpress: onDemand(() => import('~/components/wordpress/integration-tab')),
};
const ResultsPanel = serverRendered(tabParts.results, (m) => m.ResultsPanel);
const WordPressIntegrationTab = serverRendered(tabParts.wordpress, (m) => m.WordPressIntegrationTab);
const WordPressUpgrade = serverRendered(tabParts.wordpress, (m) => m.WordPressUpgrade);
/**
 * The catalogue a tab's page loads: no tab uses the ledger's texts, and the Input tab none of
 * WordPress's (the largest namespace); a later navigation brings the rest (root.tsx).
 */
const tabNamespaces = (tab: Tab): ClientNamespace[] =>
  defaultNamespaces.filter((ns) => ns !== 'ledger' && (tab !== 'input' || ns !== 'wordpress'));
export const handle = { i18n: (data: unknown) => tabNamespaces((data as { tab?: Tab } | null | undefined)?.tab ?? 'input') };
export const clientLoader = (args: ClientLoaderFunctionArgs) => withNamespaces(tabNamespaces(tabOf(new URL(args.request.url))))(args);

const preload = (name: Tab) => (name === 'input' ? undefined : () => void tabParts[name].load().catch(() => {}));

const tabOf = (url: URL): Tab => {
  const requested = url.searchParams.get('tab');
  return tabs.includes(requested as Tab) ? (requested as Tab) : 'input';
};

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const url = new URL(request.url);
  const tab = tabOf(url);

  if (tab === 'results') {
    const query = resultsQuerySchema.parse({
      page: url.searchParams.get('page') ?? undefined,
      limit: 20,
      type: url.searchParams.get('type') ?? undefined,
      search: url.searchParams.get('search') ?? undefined,
      review: url.searchParams.get('review') ?? undefined,
    });
    const watched = url.searchParams.get('run');
    // The run is read before its rows: a run seen ended is never shown beside a row read earlier as
    // still processing (the page stops polling once the run has ended).
    const latest = await getLatestRun(userId);
    // The run just started (?run=) stays in view after it ends; otherwise only a running one shows.
    let run = latest && (latest.status === 'processing' || latest.id === watched) ? latest : null;
    if (!run && watched) run = await getRunProgress(userId, watched).catch(() => null);
    const [page, completed, sites] = await Promise.all([
      listResults(userId, query),
      countCompleted(userId, { type: query.type, search: query.search }),
      listSites(userId),
    ]);
    // WordPress: each result's latest publication, publish links and bulk selection.
    const ids = page.results.map((r) => r.id);
    const { publications, held } = await publicationsAndHolds(userId, ids);
    return json(
      {
        user,
        account,
        tab,
        input: null,
        integration: null,
        results: {
          results: page.results.map((r) => ({ ...r, publication: publicationView(publications.get(r.id)), held: held.has(r.id) })),
          wordpress: { canPublish: isPro(user.subscriptionStatus), hasSites: sites.length > 0, timeZone: await readerTimeZone(request) },
          pagination: { page: page.pagination.page, totalPages: page.pagination.totalPages, total: page.pagination.total },
          filter: query.type as ResultsFilter,
          search: query.search,
          review: query.review ?? null,
          view: (url.searchParams.get('view') === 'grid' ? 'grid' : 'list') as ResultsView,
          run,
          completed,
        },
      },
      { headers: privatePageHeaders },
    );
  }

  if (tab === 'input') {
    const [keys, tools] = await Promise.all([maskedApiKeys(userId), loadInputTools(userId, url)]);
    // A loaded template sets the generation type.
    const type = tools.template?.type ?? (url.searchParams.get('type') === 'image' ? 'image' : 'text');
    return json(
      {
        user,
        account,
        tab,
        input: {
          type,
          isPro: isPro(user.subscriptionStatus),
          maxTopics: generationConfig().maxTopics,
          // Defaults, then the last-used values and settings, then the active template, then topics
          // from a CSV upload or title generation without JavaScript.
          initialValues: inputInitialValues(defaultGenerationValues(type), tools),
          tools: {
            inputMethod: tools.inputMethod,
            template: tools.template ? { id: tools.template.id, name: tools.template.name } : null,
            draftId: url.searchParams.get('topics'),
            // A CSV's per-row columns (title, keywords, instructions) travel as the draft's id; the
            // form shows how many of its topics carry them (matched by topic text).
            brief: briefOfDraft(url.searchParams.get(TOPIC_DRAFT_PARAM), tools.draft?.rows),
          },
          savedImageKey: keys.replicateApiKey ? keys.replicateApiKey.slice(-4) : null,
        },
        results: null,
        integration: null,
      } as const,
      { headers: privatePageHeaders },
    );
  }

  // The WordPress integration tab: Pro and Pro (Ending) only; Free users get the upgrade prompt.
  const integration = isPro(user.subscriptionStatus) ? await integrationOverview(userId, await readerTimeZone(request)) : null;
  return json({ user, account, tab, input: null, results: null, integration }, { headers: privatePageHeaders });
}

function briefOfDraft(draftId: string | null, rows: Parameters<typeof briefsByTopic>[0]) {
  const topics = [...briefsByTopic(rows).keys()];
  return draftId && topics.length ? { draftId, topics } : null;
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const [tg, tw] = await Promise.all([getT(request, 'generation'), getT(request, 'workspace')]);
  const submission = parseWithZod(formData, { schema: generationFormSchema(tg as Translate, { maxTopics: generationConfig().maxTopics }) });
  if (submission.status !== 'success') {
    return json({ result: submission.reply({ hideFields: ['replicateApiKey'] }), serviceError: null, confirm: null }, { status: 400 });
  }
  const { replicateApiKey: _key, ...input } = submission.value;
  // `js` says the page's script sent the form: it showed the cost against the balance as the topics
  // were typed. Without it nothing has shown the figure yet, so the first Start is answered with it
  // and a Confirm button; the run starts when the form comes back with that same figure.
  const scripted = submission.payload.js === '1';
  const balance = async () => (await getAccountSummary(user)).credits.totalCreditsRemaining;
  const short = (cost: number, credits: number) => ({
    title: tw('form.errorTitle'),
    message: tw('form.short', { cost: tw('form.usageCredits', { count: cost }), credits: tw('form.usageCredits', { count: credits }) }),
    code: 'insufficient_credits',
  });
  const reply = () => submission.reply({ hideFields: ['replicateApiKey'] });
  // A CSV's per-row columns come with the draft the upload stored (the form posts its id); both it
  // and `js` are beside the schema's fields in the payload.
  const posted = submission.payload[BRIEF_DRAFT_FIELD];
  const draftId = typeof posted === 'string' ? posted : null;
  try {
    if (!scripted) {
      const [{ count, cost }, credits, draft] = await Promise.all([
        previewRunFor(user.id, submission.value),
        balance(),
        loadTopicDraft(user.id, draftId),
      ]);
      if (cost > credits) return json({ result: reply(), serviceError: short(cost, credits), confirm: null }, { status: 402 });
      // The confirm step's form carries the CSV draft on (the page it renders has no ?topics=).
      if (submission.payload[CONFIRMED_FIELD] !== confirmedValue({ count, cost }))
        return json({ result: reply(), serviceError: null, confirm: { count, cost, credits }, brief: briefOfDraft(draftId, draft?.rows) });
    }
    const run = await startRunFor(user.id, submission.value, { draftId });
    // As PATCH /api/user/settings would: the run's values are remembered for the next visit.
    await saveLastUsed(user.id, lastUsedFromForm({ ...input, generationType: input.type })).catch((error: unknown) =>
      getLogger().warn({ err: error instanceof Error ? error.message : String(error) }, 'last-used values not saved'),
    );
    // With the page's script the view switches to the results; without it, the
    // self-refreshing progress page of the run. A plan-first run goes to its run page, where
    // its plans are reviewed (it polls by itself with the script).
    const planFirst = input.type === 'text' && input.planFirst;
    if (planFirst && scripted) return redirect(`/app/runs/${run.runId}`);
    return redirect(scripted ? `/app?tab=results&run=${run.runId}` : `/app/runs/${run.runId}?watch=1`);
  } catch (error) {
    if (!(error instanceof GenerationError)) throw error;
    const { message, status } = await explainError(error, tg as Translate);
    // Short of credits: the figures, as the form says them before Start (the balance may have moved since).
    const serviceError =
      error.code === 'insufficient_credits'
        ? short(quoteRun(submission.value).cost, await balance())
        : { title: error.code === 'pro_only' ? tw('form.proFeature') : tw('form.errorTitle'), message, code: error.code };
    return json({ result: reply(), serviceError, confirm: null }, { status });
  }
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;
type ResultsData = NonNullable<LoaderData['results']>;

/**
 * With JavaScript: while the run is processing, reload the tab's data every 2 s (results and
 * progress stay within 2 s of the server's); when it ends, the 'Generation Complete' toast and back to page 1.
 */
function useRunPolling(data: ResultsData | null) {
  const { t } = useTranslation('workspace');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const run = data?.run ?? null;
  const watched = params.get('run');
  const previous = useRef<{ id: string; status: string } | null>(null);
  const processing = run?.status === 'processing';

  useRevalidateWhile(processing);

  useEffect(() => {
    const before = previous.current;
    previous.current = run ? { id: run.id, status: run.status } : null;
    // Plans wait for review on the run's page, not in the results.
    if (!run || run.status === 'processing' || run.status === 'planned') return;
    // The run ended while watched, or had already ended when the view switched to it.
    const ended = before?.id === run.id && before.status === 'processing';
    if (!ended && !(before === null && watched === run.id)) return;
    if (!firstTime(`postforge:run-ended:${run.id}`)) return;
    showToast(runEndedToast(t, run));
    if (data && data.pagination.page !== 1)
      navigate(resultsHref({ filter: data.filter, search: data.search, view: data.view }), { replace: true, preventScrollReset: true });
  }, [run, data, watched, t, navigate]);
}

/** True the first time a key is seen in this tab (a reload does not repeat the toast). */
function firstTime(key: string): boolean {
  try {
    if (sessionStorage.getItem(key)) return false;
    sessionStorage.setItem(key, '1');
  } catch {
    // No storage: toast anyway.
  }
  return true;
}

export default function Workspace() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { user, account, tab } = data;
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const canUseWordPress = isPro(user.subscriptionStatus);
  useRunPolling(data.results);

  // A refusal of the service also shows as a toast with the page's script (it is in the form anyway).
  // Not a shortage of credits: its alert sits above Start with the upgrade / top-up link, and a
  // toast in the corner would cover Start on a phone.
  useEffect(() => {
    const refusal = actionData?.serviceError;
    if (refusal && refusal.code !== 'insufficient_credits')
      showToast({ type: 'error', title: refusal.title, description: refusal.message });
  }, [actionData]);

  const hrefOf = (name: Tab) =>
    name === 'input' ? (params.get('type') === 'image' && tab === 'input' ? '/app?type=image' : '/app') : `/app?tab=${name}`;

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('workspace.welcome', { name: user.name })}</h1>
        <p className="text-sm text-slate-700">{t('workspace.subtitle')}</p>
      </div>

      <nav aria-label={t('workspace.tabs.label')} className="mt-8 border-b border-slate-200">
        {/* At 390 px every tab fits (a shorter WordPress label); narrower, the strip scrolls and its
            edge shadow says so (a cut-off last tab would give no sign). */}
        <ul className="scroll-hint-x -mb-px flex gap-1 overflow-x-auto sm:gap-2" data-testid="workspace-tabs">
          {tabs.map((name) => {
            const active = name === tab;
            return (
              <li key={name}>
                <AppLink
                  to={hrefOf(name)}
                  aria-current={active ? 'page' : undefined}
                  preventScrollReset
                  onMouseEnter={preload(name)}
                  onFocus={preload(name)}
                  onClick={preload(name)}
                  className={`inline-flex items-center gap-2 whitespace-nowrap border-b-2 px-3 py-3 text-sm font-medium sm:px-4 focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    active
                      ? 'border-indigo-600 text-indigo-700'
                      : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900'
                  }`}
                >
                  {name === 'wordpress' ? (
                    <>
                      <span className="sm:hidden">{t('workspace.tabs.wordpressShort')}</span>
                      <span className="hidden sm:inline">{t('workspace.tabs.wordpress')}</span>
                    </>
                  ) : (
                    t(`workspace.tabs.${name}`)
                  )}
                  {name === 'wordpress' && !canUseWordPress ? <Badge tone="brand">{t('plan.pro')}</Badge> : null}
                </AppLink>
              </li>
            );
          })}
        </ul>
      </nav>

      <section aria-label={t(`workspace.tabs.${tab}`)} className="mt-6 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:p-8">
        {data.input ? (
          <InputTab input={data.input} actionData={actionData} credits={account.credits.totalCreditsRemaining} />
        ) : data.results ? (
          <ResultsPanel {...data.results} />
        ) : data.integration ? (
          <WordPressIntegrationTab data={data.integration} />
        ) : (
          <WordPressUpgrade />
        )}
      </section>
    </AppShell>
  );
}

/** The Input tab: the generation form with the input tools in its slots. */
function InputTab({
  input,
  actionData,
  credits,
}: {
  input: NonNullable<LoaderData['input']>;
  actionData: ReturnType<typeof useActionData<typeof action>>;
  credits: number;
}) {
  const { slots, dialog } = useWorkspaceInputTools({
    type: input.type,
    inputMethod: input.tools.inputMethod,
    template: input.tools.template,
    brief: input.tools.brief ?? (actionData && 'brief' in actionData ? actionData.brief : null),
    prompts: input.initialValues.prompts,
  });
  return (
    <>
      <GenerationForm
        // A template or topics arriving by URL start the form afresh with their values.
        key={`${input.type}:${input.tools.template?.id ?? ''}:${input.tools.draftId ?? ''}`}
        type={input.type}
        isPro={input.isPro}
        credits={credits}
        maxTopics={input.maxTopics}
        initialValues={input.initialValues}
        savedImageKey={input.savedImageKey}
        lastResult={actionData?.result}
        serviceError={actionData?.serviceError}
        confirm={actionData?.confirm}
        slots={slots}
      />
      {dialog}
    </>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.appTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
