import type { TestProject } from 'vitest/node';
import { migratedTemplate, startTestCluster } from './database';

// One cluster per `vitest run` and one migrated template database on it. Each worker copies the
// template into a database of its own (vitest-setup.ts), so files that run at the same time in
// different workers never share rows or pg-boss queues; freshDatabase() copies it too.
export default async function setup(project: TestProject) {
  const cluster = await startTestCluster();
  const template = await migratedTemplate(cluster.url);
  process.env.TEST_CLUSTER_URL = cluster.url;
  project.provide('clusterUrl', cluster.url);
  project.provide('templateDatabase', template);
  project.provide('workerDatabasePrefix', `${template.replace(/^pf_template_/, 'pf_test_')}_w`);
  return async () => {
    await cluster.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    clusterUrl: string;
    templateDatabase: string;
    workerDatabasePrefix: string;
  }
}
