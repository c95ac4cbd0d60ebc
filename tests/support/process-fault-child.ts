import pino from 'pino';
import { exitOnUncaughtErrors } from '../../app/runtime/process-faults.server';

// Run by tests/unit/process-faults.test.ts: installs the process's policy for uncaught errors, then
// fails the way FAULT says, from where no caller can catch it.
const logger = pino({ level: 'info' });
exitOnUncaughtErrors(logger, { role: 'worker' }, async () => {
  if (process.env.CLEANUP === 'hang') await new Promise(() => setInterval(() => {}, 1000));
  console.log('cleanup ran');
});
setInterval(() => {}, 1000); // the process would otherwise live on
if (process.env.FAULT === 'rejection') void Promise.reject(new Error('nobody awaited this'));
else setImmediate(() => (null as unknown as { write: () => void }).write());
