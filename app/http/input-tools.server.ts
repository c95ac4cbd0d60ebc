import { getTemplate } from '~/services/templates.server';
import { loadTopicDraft, TOPIC_DRAFT_PARAM } from '~/services/topic-drafts.server';
import { getLastUsed, getSettings } from '~/services/user-settings.server';
import { applyTemplate, initialFormValues } from '~/utils/input-settings';

// What the workspace's Input tab loads for the input tools (the seam for app.tsx's loader):
// - `initial`: the form's first values (last-used values, then the settings' defaults);
// - `draft`: topics from a no-JavaScript CSV upload or title generation (?topics=<id>) for the text area;
// - `template`: the active template (?template=<id>, how a template is loaded without JavaScript)
//   with the values it sets (applyTemplate: type, model, settings with defaults);
// - `inputMethod`: 'csv' when the CSV view was asked for (?input=csv), else 'manual'.
export async function loadInputTools(userId: string, url: URL) {
  const params = url.searchParams;
  const [last, settings, draft, template] = await Promise.all([
    getLastUsed(userId),
    getSettings(userId),
    loadTopicDraft(userId, params.get(TOPIC_DRAFT_PARAM)),
    params.get('template') ? getTemplate(userId, params.get('template')!) : Promise.resolve(null),
  ]);
  return {
    initial: initialFormValues(last, settings),
    settings,
    draft,
    template: template ? { id: template.id, name: template.name, type: template.type, values: applyTemplate(template, settings) } : null,
    inputMethod: params.get('input') === 'csv' && !draft ? ('csv' as const) : ('manual' as const),
  };
}
export type InputToolsData = Awaited<ReturnType<typeof loadInputTools>>;

/** The generation form's first values: its defaults, the last-used values, the active template, the topics of a draft. */
export function inputInitialValues<V extends { type: 'text' | 'image'; prompts: string; model: string }>(
  defaults: V,
  tools: InputToolsData,
): V {
  const type = defaults.type;
  const { model: textModel, ...text } = tools.initial.text;
  const { model: imageModel, ...image } = tools.initial.image;
  const values: Record<string, unknown> = { ...defaults, ...text, ...image, model: type === 'text' ? textModel : imageModel };
  if (tools.template && tools.template.type === type) {
    const {
      generationType: _type,
      temperature: _temperature,
      maxTokens: _maxTokens,
      ...applied
    } = tools.template.values as Record<string, unknown>;
    Object.assign(values, applied);
  }
  if (tools.draft) values.prompts = tools.draft.prompts.join('\n');
  return values as V;
}
