import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';

// A worker process killed with SIGKILL in the middle of a run loses nothing: after a new worker
// starts, every item ends completed or failed, no hold is left open, nothing is charged twice.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let openai: OpenAiServer;
const children: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/generation-worker-child.ts'], {
    cwd: root,
    env: {
      ...process.env,
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-operator',
      GENERATION_CONCURRENCY: '10',
      GENERATION_CONCURRENCY_PER_USER: '10',
      GENERATION_LEASE_SECONDS: '5',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
  });
}

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 400 });
  process.env.OPENROUTER_BASE_URL = openai.url;
  process.env.OPENROUTER_API_KEY = 'sk-operator';
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await openai?.close();
});

describe('a worker killed mid-run', () => {
  it('SIGKILL, then a new worker: every item ends completed or failed, no hold left, nothing charged twice', async () => {
    const { startRun } = await import('../../app/services/generation/start.server');
    const { textGenerationSchema } = await import('../../app/utils/generation-schema');
    const { verifyLedger } = await import('../../app/services/ledger-verify.server');
    const u = await createGenUser(getSql(), { credits: 60 });
    const before = await available(getSql(), u.id);
    const first = await startWorker();
    const run = await startRun(
      u.id,
      textGenerationSchema().parse({
        prompts: Array.from({ length: 60 }, (_, i) => `crash topic ${i}`).join('\n'),
        model: 'openai/gpt-4o-mini-search-preview',
      }),
    );
    // Kill it while items are in flight.
    while (((await statusCounts(getSql(), run.runId)).completed ?? 0) < 12) await new Promise((r) => setTimeout(r, 50));
    const [{ leased }] =
      (await sql`SELECT count(*)::int AS leased FROM generation_results WHERE run_id = ${run.runId} AND lease_until > now()`) as unknown as [
        { leased: number },
      ];
    expect(leased).toBeGreaterThan(0);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = await startWorker();
    await waitForRun(getSql(), run.runId, 90_000);
    const counts = await statusCounts(getSql(), run.runId);
    expect((counts.completed ?? 0) + (counts.failed ?? 0)).toBe(60);
    expect(counts.completed).toBe(60);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    const [entries] = (await sql`
      SELECT count(*) FILTER (WHERE kind = 'post')::int AS posts, count(*) FILTER (WHERE kind = 'void')::int AS voids
      FROM ledger_entries WHERE user_id = ${u.id}`) as unknown as [{ posts: number; voids: number }];
    expect(entries).toEqual({ posts: counts.completed, voids: counts.failed ?? 0 });
    expect(await available(getSql(), u.id)).toBe(before - counts.completed!);
    // Every item was asked at least once; those the killed worker had in flight (if any were still
    // waiting on the provider at the kill) were asked again, and none was charged twice (above).
    expect(openai.requests.length).toBeGreaterThanOrEqual(60);
    expect((await verifyLedger({ userId: u.id })).ok).toBe(true);
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }, 120_000);
});
