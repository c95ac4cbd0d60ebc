import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Files that take 15 s or more (WordPress round trips, child processes, property runs), started
// first: on a fresh clone vitest has no timings and orders by file size, so a slow small file
// could start last and run alone while the other workers sit idle.
const SLOW_FILES = [
  'integration/wordpress-drip',
  'integration/wordpress-contract',
  'integration/internal-links-publish',
  'integration/database-outage',
  'integration/billing-refund-property',
  'integration/wordpress-publish',
  'integration/wordpress-bulk',
  'integration/generation-crash',
  'integration/nemesis',
  'integration/many-processes-generation',
  'unit/lint-boundaries',
  'integration/many-processes-startup',
  'integration/auth',
  'integration/wordpress-review',
  'integration/embedded',
  'integration/idempotency',
  'integration/many-processes-publishing',
  'integration/page-html',
  'integration/billing-one-subscription',
  'integration/billing',
];

function rank(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll('\\', '/');
  const at = SLOW_FILES.findIndex((name) => path.endsWith(`/tests/${name}.test.ts`));
  return at === -1 ? SLOW_FILES.length : at;
}

/** Vitest's own order, with the known slow files moved to the front (longest first). */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}
