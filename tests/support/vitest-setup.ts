import { afterAll, inject } from 'vitest';
import { closeSql } from '../../db/client';
import { stopBoss } from '../../app/queue/boss';
import { installConsoleGuard } from './console-guard';
import { workerDatabase } from './database';

// Each worker talks to its own copy of the run's migrated template through the app's own pools
// (see vitest-global-setup.ts); freshDatabase() copies the template too.
process.env.TEST_CLUSTER_URL = inject('clusterUrl');
process.env.TEST_TEMPLATE_DATABASE = inject('templateDatabase');
process.env.DATABASE_URL = await workerDatabase(
  inject('clusterUrl'),
  inject('templateDatabase'),
  `${inject('workerDatabasePrefix')}${process.env.VITEST_POOL_ID ?? '1'}`,
);

// An unexpected console.error fails its test (see console-guard.ts for expectConsoleError()).
installConsoleGuard();

afterAll(async () => {
  await stopBoss();
  await closeSql();
});
