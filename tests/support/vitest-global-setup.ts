import type { TestProject } from 'vitest/node';
import { freshDatabase, startTestCluster } from './database';

// One cluster and one fresh database per `vitest run`; workers inherit DATABASE_URL.
export default async function setup(project: TestProject) {
  const cluster = await startTestCluster();
  const url = await freshDatabase(cluster.url);
  process.env.DATABASE_URL = url;
  process.env.TEST_CLUSTER_URL = cluster.url;
  project.provide('databaseUrl', url);
  project.provide('clusterUrl', cluster.url);
  return async () => {
    await cluster.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    clusterUrl: string;
  }
}
