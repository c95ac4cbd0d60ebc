import { afterAll, inject } from 'vitest';
import { closeSql } from '../../db/client';
import { stopBoss } from '../../jobs/boss';

// Each worker talks to the run's fresh database through the app's own pool.
process.env.DATABASE_URL = inject('databaseUrl');
process.env.TEST_CLUSTER_URL = inject('clusterUrl');

afterAll(async () => {
  await stopBoss();
  await closeSql();
});
