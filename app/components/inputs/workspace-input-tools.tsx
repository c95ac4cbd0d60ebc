import { useLocation, useNavigate } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { structureFlags } from '~/catalogue';
import { buttonClass } from '~/components/ui/button';
import { topicKey } from '~/utils/csv-file';
import { splitTopics } from '~/utils/text-lines';
import type { TemplateType } from '~/utils/input-settings';
import type { CsvLoaded } from './csv-import';
import { GenerateTitlesButton } from './generate-titles-button';
import { GENERATION_FORM_ID } from '~/components/generation/generation-form';
import { onDemand, serverRendered, submitWithoutScript, useOnDemand, whenLoaded } from '~/components/on-demand';
import { ActiveTemplateBanner, SaveCurrentButton, TemplatesButton, TEMPLATE_PARAM, TEMPLATES_PAGE } from './template-buttons';

// The input tools in the workspace's Input tab, through the generation form's slots (banner,
// topicsToolbar, topicsReplacement). The form is Conform's: its text area is set the way a user
// would (value + input event), so Conform's state follows.

const FORM_SELECTOR = `form#${GENERATION_FORM_ID}`;
/** The form field carrying the id of the draft that holds a CSV's per-row columns. */
export const BRIEF_DRAFT_FIELD = 'topicsDraft';

function promptsArea(): HTMLTextAreaElement | null {
  return document.querySelector<HTMLTextAreaElement>(`${FORM_SELECTOR} textarea[name="prompts"]`);
}

function setPrompts(text: string) {
  const area = promptsArea();
  if (!area) return;
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(area, text);
  area.dispatchEvent(new Event('input', { bubbles: true }));
}

/** The form's current settings (for Save Current and the titles' options). */
function currentFormValues(): Record<string, unknown> {
  const form = document.querySelector<HTMLFormElement>(FORM_SELECTOR);
  if (!form) return {};
  const data = new FormData(form);
  const out: Record<string, unknown> = {};
  for (const [k, v] of data.entries())
    if (typeof v === 'string' && !['intent', 'js', 'replicateApiKey', 'prompts', 'type'].includes(k)) out[k] = v;
  for (const flag of [...structureFlags, 'embedImage']) {
    if (form.querySelector(`[name="${flag}"]`)) out[flag] = data.get(flag) === 'on';
  }
  return out;
}

/** The Templates dialog, loaded when it first opens. */
const templatesDialog = onDemand(() => import('./templates'));
/** The CSV import, loaded when it is first shown (the server renders it for ?input=csv). */
const csvImport = onDemand(() => import('./csv-import'));
const CsvImport = serverRendered(csvImport, (m) => m.CsvImport);

export type WorkspaceInputToolsProps = {
  type: TemplateType;
  inputMethod: 'manual' | 'csv';
  template: { id: string; name: string } | null;
  /** A CSV's per-row columns: the draft holding them and the topics (keys) that have some. */
  brief?: { draftId: string; topics: string[] } | null;
  /** The text area's first value (the server's render counts the topics that carry CSV columns). */
  prompts?: string;
};

export function useWorkspaceInputTools({ type, inputMethod, template, brief: loadedBrief = null, prompts = '' }: WorkspaceInputToolsProps) {
  const { t } = useTranslation('inputs');
  const navigate = useNavigate();
  const location = useLocation();
  const [method, setMethod] = useState(inputMethod);
  const [dialog, setDialog] = useState<'list' | 'save' | null>(null);
  const [keywords, setKeywords] = useState(prompts);
  const pending = useRef<string | null>(null);
  const base = type === 'image' ? '/app?type=image' : '/app';
  const [brief, setBrief] = useState(loadedBrief);
  // The last file loaded: the CSV view shows its count and numbered list again (with Replace file).
  const [lastCsv, setLastCsv] = useState<CsvLoaded | null>(null);
  const dialogs = useOnDemand(templatesDialog);

  useEffect(() => setMethod(inputMethod), [inputMethod]);
  // A draft brought by the URL (the CSV upload without JavaScript) replaces the one held.
  const loadedDraft = loadedBrief?.draftId;
  useEffect(() => {
    if (loadedBrief) setBrief(loadedBrief);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new draft counts
  }, [loadedDraft]);

  // How many of the topics now in the text area carry a CSV row's columns.
  const briefKeys = new Set(brief?.topics ?? []);
  const briefCount = brief ? splitTopics(keywords).filter((topic) => briefKeys.has(topicKey(topic))).length : 0;

  // Follow the text area (for the button's singular/plural label and its disabled state).
  useEffect(() => {
    const area = promptsArea();
    if (!area) return;
    setKeywords(area.value);
    const onInput = () => setKeywords(area.value);
    area.addEventListener('input', onInput);
    return () => area.removeEventListener('input', onInput);
  }, [method, location.key]);

  // Topics waiting for the text area (after a CSV import, or kept across a template load).
  useEffect(() => {
    const state = location.state as { prompts?: string } | null;
    if (state?.prompts && !pending.current) pending.current = state.prompts;
    if (pending.current !== null && promptsArea()) {
      setPrompts(pending.current);
      pending.current = null;
    }
  }, [method, location.key, location.state]);

  // Back to manual input: the CSV view's address (?input=csv, where the upload without JavaScript
  // returns) goes too, so a reload or a shared link does not reopen the drop zone.
  const toManual = () => {
    setMethod('manual');
    const params = new URLSearchParams(location.search);
    if (!params.has('input')) return;
    params.delete('input');
    const search = params.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : '' }, { replace: true, preventScrollReset: true });
  };

  const goWithPrompts = (to: string) => navigate(to, { state: { prompts: promptsArea()?.value ?? '' }, preventScrollReset: true });

  const csvHref = `${base}${base.includes('?') ? '&' : '?'}input=csv`;
  const slots = {
    banner: (
      <div className="flex flex-col gap-3">
        {template ? <ActiveTemplateBanner name={template.name} clearHref={base} onClear={() => goWithPrompts(base)} /> : null}
        <div className="flex flex-wrap gap-2">
          {/* The dialog's script comes on the first click; if it cannot, the buttons do what they do without JavaScript. */}
          <TemplatesButton
            type={type}
            onOpen={() =>
              whenLoaded(
                templatesDialog,
                () => setDialog('list'),
                () => window.location.assign(`${TEMPLATES_PAGE}?type=${type}`),
              )
            }
          />
          <SaveCurrentButton
            formId={GENERATION_FORM_ID}
            onOpen={(button) =>
              whenLoaded(
                templatesDialog,
                () => setDialog('save'),
                () => submitWithoutScript(button),
              )
            }
          />
        </div>
      </div>
    ),
    topicsToolbar: (
      <>
        {brief ? <input type="hidden" name={BRIEF_DRAFT_FIELD} value={brief.draftId} /> : null}
        {briefCount > 0 ? (
          <p className="basis-full text-xs text-slate-600" data-testid="csv-brief-note">
            {t('brief.attached', { count: briefCount })}
          </p>
        ) : null}
        {method === 'manual' ? (
          <a
            href={csvHref}
            onClick={(event) => {
              event.preventDefault();
              // The import's script first; if it cannot come, the link's page (the server's CSV view).
              whenLoaded(
                csvImport,
                () => {
                  // The text area leaves the page in the CSV view: its topics come back with manual input.
                  pending.current = promptsArea()?.value ?? null;
                  setMethod('csv');
                },
                () => window.location.assign(csvHref),
              );
            }}
            className={buttonClass('ghost', 'sm')}
          >
            {t('csv.switchToCsv')}
          </a>
        ) : null}
        {/* Titles are for blog posts: image prompts get no title tool. */}
        {method === 'manual' && type === 'text' ? (
          <GenerateTitlesButton keywords={keywords} options={currentFormValues} onTitles={(titles) => setPrompts(titles.join('\n'))} />
        ) : null}
      </>
    ),
    topicsReplacement:
      method === 'csv' ? (
        <CsvImport
          initial={lastCsv}
          backHref={base}
          onBack={toManual}
          onLoaded={(result) => {
            // A successful upload puts the topics into the text area and returns to manual.
            pending.current = result.prompts.join('\n');
            setLastCsv(result);
            // The rows' own columns travel as the draft the upload stored (none: the new file has none).
            setBrief(
              result.draftId
                ? {
                    draftId: result.draftId,
                    topics: result.rows.filter((r) => r.title || r.keywords || r.instructions).map((r) => topicKey(r.topic)),
                  }
                : null,
            );
            toManual();
          }}
        />
      ) : undefined,
  };

  const dialogElement =
    dialog && dialogs ? (
      <dialogs.TemplatesDialog
        type={type}
        startSaving={dialog === 'save'}
        onClose={() => setDialog(null)}
        currentSettings={currentFormValues}
        onLoad={(chosen) => goWithPrompts(`/app?${chosen.type === 'image' ? 'type=image&' : ''}${TEMPLATE_PARAM}=${chosen.id}`)}
        // Deleting the active template clears it, as Clear does (its banner stayed).
        onDeleted={(deleted) => {
          if (deleted.id === template?.id) goWithPrompts(base);
        }}
      />
    ) : null;

  return { slots, dialog: dialogElement };
}
