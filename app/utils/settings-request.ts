import { z } from 'zod';
import { appSettings } from '~/utils/input-settings';
import { settableTimeZone } from '~/utils/time-zone';

// POST /api/settings and POST /api/api-keys bodies. Keys: a blank value is not saved (a
// field left empty keeps the key); `null` removes the key; a masked value sent back unchanged (••••1234) is ignored.

const keyField = z
  .union([z.string().max(500), z.null()])
  .optional()
  .transform((v) => (typeof v === 'string' && (v.trim() === '' || v.includes('•')) ? undefined : v));

export const apiKeysSchema = z.object({ openRouterApiKey: keyField, replicateApiKey: keyField });

/** The user's time zone: an IANA name of supportedTimeZones(), kept in this runtime's spelling; blank leaves it. */
const timeZoneField = z
  .preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().trim().max(64).optional())
  .refine((v) => v === undefined || settableTimeZone(v) !== null, 'Unknown time zone')
  .transform((v) => (v === undefined ? undefined : settableTimeZone(v)!));

export const settingsRequestSchema = appSettings.strict.merge(apiKeysSchema).extend({ timeZone: timeZoneField });

// A form field as a browser posts it: text (a file or a repeated name is no text), or a checkbox.
const formText = z.unknown().transform((v) => (typeof v === 'string' ? v : undefined));
const formChecked = z.unknown().transform((v) => v === 'on' || v === 'true');
const formOn = z.unknown().transform((v) => v === 'on');

/**
 * A plain form post of the settings panel (parsed with Conform's parseWithZod, no coercion): unchecked
 * boxes are false; "remove" boxes delete a key; then the same rules as the JSON body.
 */
export const settingsFormSchema = z
  .object({
    defaultTextModel: formText,
    defaultImageModel: formText,
    darkMode: formChecked,
    autoSave: formChecked,
    aspectRatio: formText,
    stylePreset: formText,
    guidanceScale: formText,
    numOutputs: formText,
    timeZone: formText,
    openRouterApiKey: formText,
    replicateApiKey: formText,
    removeOpenRouterApiKey: formOn,
    removeReplicateApiKey: formOn,
  })
  .transform(({ removeOpenRouterApiKey, removeReplicateApiKey, ...fields }) => {
    const raw: Record<string, unknown> = {
      ...fields,
      openRouterApiKey: removeOpenRouterApiKey ? null : fields.openRouterApiKey,
      replicateApiKey: removeReplicateApiKey ? null : fields.replicateApiKey,
    };
    return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  })
  .pipe(settingsRequestSchema);
