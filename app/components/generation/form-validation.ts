import { parseWithZod } from '@conform-to/zod';
import { generationFormSchema, type Translate } from '~/utils/generation-schema';

// The generation form's validation in the browser (zod and the schema): downloaded when the reader
// first touches the form, not with the page. Until it is there, or if it cannot be downloaded,
// Start posts the form and the server's answer shows its errors, as without JavaScript.

/**
 * The form's validator. The schema is built on the first validation, not when the validator is
 * made: building it (zod, a translated message per rule) is most of the cost.
 */
export function generationFormValidator(t: Translate, maxTopics: number) {
  let schema: ReturnType<typeof generationFormSchema> | null = null;
  return (formData: FormData) => parseWithZod(formData, { schema: (schema ??= generationFormSchema(t, { maxTopics })) });
}
