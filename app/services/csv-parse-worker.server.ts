import { parentPort, threadId } from 'node:worker_threads';
import { parseCsvUpload } from './csv-import.server';

// A CSV parsing thread (started by csv-parse-threads.server.ts): each message is one file's bytes,
// each answer that file's parse, the thread it ran on and how long it took there.
parentPort?.on('message', (bytes: Uint8Array) => {
  const started = performance.now();
  const result = parseCsvUpload(bytes);
  parentPort!.postMessage({ result, threadId, ms: performance.now() - started });
});
