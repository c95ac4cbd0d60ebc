// The workspace route's parsing (its action's form and the results list's query), imported through
// a .server module so the browser's build leaves it out: a route that imports these shared modules,
// even for its action alone, gets the zod schemas they build at load in its browser bundle.
export { parseWithZod } from '@conform-to/zod';
export { generationFormSchema, resultsQuerySchema } from '~/utils/generation-schema';
export { lastUsedFromForm } from '~/utils/input-settings';
