import { z } from 'zod';
import { fixKinds } from '~/catalogue';
import type { Translate } from './generation-schema';
import { ADDABLE_SECTIONS } from './quality/fixes';

// The request of a one-click fix, shared by the JSON route and its OpenAPI document.

/**
 * The body of `POST /api/results/{id}/fix` (and the Results tab's fix form): which fix, the section
 * for `add_section`, and optionally what the asker saw (the post's `updatedAt`, the price).
 */
export function resultFixSchema(t: Translate) {
  return z
    .object({
      kind: z.enum(fixKinds, { message: t('fixes.validation.kind') }),
      section: z.enum(ADDABLE_SECTIONS, { message: t('fixes.validation.section') }).optional(),
      basis: z
        .string()
        .datetime({ offset: true, message: t('fixes.validation.basis') })
        .optional(),
      cost: z.number().int().positive().optional(),
    })
    .strict()
    .refine((v) => (v.kind === 'add_section') === (v.section !== undefined), {
      message: t('fixes.validation.section'),
      path: ['section'],
    });
}
