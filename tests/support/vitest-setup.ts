import { afterAll, inject } from 'vitest';
import { closeSql } from '../../db/client';
import { stopBoss } from '../../app/queue/boss';
import { installConsoleGuard } from './console-guard';

// Each worker talks to the run's fresh database through the app's own pools.
process.env.DATABASE_URL = inject('databaseUrl');
process.env.TEST_CLUSTER_URL = inject('clusterUrl');

// An unexpected console.error fails its test (see console-guard.ts for expectConsoleError()).
installConsoleGuard();

afterAll(async () => {
  await stopBoss();
  await closeSql();
});
