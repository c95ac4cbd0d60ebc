import type { TestProject } from 'vitest/node';
import { migratedTemplate, startTestCluster } from './database';

// One cluster per `vitest run` and one migrated template database on it. Each test file works in a
// copy of the template (vitest-setup.ts), so files never share rows or pg-boss jobs, whether they
// run at the same time in different workers or one after another; freshDatabase() copies it too.
export default async function setup(project: TestProject) {
  const cluster = await startTestCluster();
  const template = await migratedTemplate(cluster.url);
  process.env.TEST_CLUSTER_URL = cluster.url;
  project.provide('clusterUrl', cluster.url);
  project.provide('templateDatabase', template);
  return async () => {
    await cluster.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    clusterUrl: string;
    templateDatabase: string;
  }
}
