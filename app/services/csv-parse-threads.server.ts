import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { getLogger } from '~/runtime/logger.server';
import { singleton } from '~/runtime/singleton.server';
import { workerPool } from '~/runtime/worker-pool.server';
import type { CsvResult } from './csv-import.server';

// An upload's CSV is parsed on a worker thread, never on the web process's event loop: csv-parse
// spends seconds on a 1 MB file of commas, and the loop answers nothing else meanwhile (/healthz
// went from milliseconds to a second under three such uploads).
//
// A thread rather than a parse cut into chunks that yield to the loop: chunks would still spend
// those seconds of CPU on the loop's one thread, shared with every request; decoding the file and
// checking its rows (linear in the file too) would need cutting as well; and csv-parse's streaming
// API would have to give the same records as its one-shot parse at every chunk edge. A thread runs
// the very parseCsvUpload that input-csv.test.ts pins down, so its answer is the same by
// construction, and the loop only copies the bytes in (at most 1 MB) and the topics out.

/**
 * Parses at once per process: one core fewer than the machine has, so a burst of uploads never
 * takes the core the event loop runs on (the rest wait their turn), and at most two. On 2 cores one
 * thread kept /healthz as fast during three 1 MB uploads as without them and parsed the three in
 * about the same time as two threads (`npm run bench:csv`); with two, the loop waited for a core.
 */
export const CSV_PARSE_THREADS = Math.max(1, Math.min(2, os.availableParallelism() - 1));
/** An idle parsing thread ends after this long (its memory goes back). */
const IDLE_MS = 60_000;

type ThreadAnswer = { result: CsvResult; threadId: number; ms: number };

/**
 * A parsing thread, from the script in the form this module runs in. Compiled (the Remix build,
 * build/index.js): build/server/csv-parse-worker.js, which `npm run build` compiles beside the
 * server (scripts/build-server.mjs). From the TypeScript sources (vitest, tsx): the .ts entry,
 * loaded through tsx's API with the project's tsconfig (its `~/` paths); tsx is a development
 * dependency, and only development and tests run the sources.
 */
function startParseThread(): Worker {
  const here = import.meta.url;
  if (!new URL(here).pathname.endsWith('.ts')) return new Worker(new URL('./server/csv-parse-worker.js', here));
  const entry = new URL('./csv-parse-worker.server.ts', here).href;
  const tsconfig = fileURLToPath(new URL('../../tsconfig.json', here));
  // tsx's ES module API by its package's exports (a worker's eval code resolves bare names from
  // the working directory, not from here).
  const manifest = createRequire(here).resolve('tsx/package.json');
  const exports = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  const api = pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']!.import.default)).href;
  const options = JSON.stringify({ parentURL: entry, tsconfig });
  return new Worker(`import(${JSON.stringify(api)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${options}))`, {
    eval: true,
  });
}

// One pool per process (server.ts and the Remix build are two module graphs).
const pool = () =>
  singleton('csv-parse-threads', () =>
    workerPool<Uint8Array, ThreadAnswer>({ size: CSV_PARSE_THREADS, idleMs: IDLE_MS, start: startParseThread }),
  );

const tenths = (ms: number) => Math.round(ms * 10) / 10;

/**
 * parseCsvUpload on a parsing thread: its answer, and the thread it ran on. The bytes are copied
 * to the thread (the caller's array stays usable).
 */
export async function parseCsvUploadOffThread(bytes: Uint8Array): Promise<{ result: CsvResult; threadId: number }> {
  const asked = performance.now();
  const { result, threadId, ms } = await pool().run(bytes);
  getLogger().debug(
    {
      bytes: bytes.byteLength,
      thread: threadId,
      parseMs: tenths(ms),
      waitedMs: tenths(performance.now() - asked - ms),
      outcome: result.ok ? 'ok' : result.code,
    },
    'csv parsed',
  );
  return { result, threadId };
}
