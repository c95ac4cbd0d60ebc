import { z } from 'zod';
import { appSettings } from '~/utils/input-settings';

// SPEC §7 POST /api/settings and POST /api/api-keys bodies. Keys: a blank value is not saved (SPEC
// §5); `null` removes the key; a masked value sent back unchanged (••••1234) is ignored.

const keyField = z
  .union([z.string().max(500), z.null()])
  .optional()
  .transform((v) => (typeof v === 'string' && (v.trim() === '' || v.includes('•')) ? undefined : v));

export const apiKeysSchema = z.object({ openRouterApiKey: keyField, replicateApiKey: keyField });

export const settingsRequestSchema = appSettings.strict.merge(apiKeysSchema);

/** A plain form post of the settings panel: unchecked boxes are false; "remove" boxes delete a key. */
export function settingsFromForm(form: FormData) {
  const get = (k: string) => {
    const v = form.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const raw: Record<string, unknown> = {
    defaultTextModel: get('defaultTextModel'),
    defaultImageModel: get('defaultImageModel'),
    darkMode: form.get('darkMode') === 'on' || form.get('darkMode') === 'true',
    autoSave: form.get('autoSave') === 'on' || form.get('autoSave') === 'true',
    aspectRatio: get('aspectRatio'),
    stylePreset: get('stylePreset'),
    guidanceScale: get('guidanceScale'),
    numOutputs: get('numOutputs'),
    openRouterApiKey: form.get('removeOpenRouterApiKey') === 'on' ? null : get('openRouterApiKey'),
    replicateApiKey: form.get('removeReplicateApiKey') === 'on' ? null : get('replicateApiKey'),
  };
  for (const k of Object.keys(raw)) if (raw[k] === undefined) delete raw[k];
  return settingsRequestSchema.safeParse(raw);
}
