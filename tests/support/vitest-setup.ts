import { afterAll, inject } from 'vitest';
import { closeSql } from '../../db/client';
import { stopBoss } from '../../app/queue/boss';
import { installConsoleGuard } from './console-guard';
import { freshDatabase } from './database';

// Each test file works in a database of its own, a copy of the run's migrated template (see
// vitest-global-setup.ts): files running at the same time in other workers, or before it in this
// one, leave it no rows and no pg-boss jobs. freshDatabase() copies the template too.
process.env.TEST_CLUSTER_URL = inject('clusterUrl');
process.env.TEST_TEMPLATE_DATABASE = inject('templateDatabase');
process.env.DATABASE_URL = await freshDatabase(inject('clusterUrl'), 'pf_test');

// An unexpected console.error fails its test (see console-guard.ts for expectConsoleError()).
installConsoleGuard();

afterAll(async () => {
  await stopBoss();
  await closeSql();
});
