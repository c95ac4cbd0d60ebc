import pino from 'pino';
import { loadEnv } from './env.server';
import { singleton } from './singleton.server';

// Secrets never reach a log line: passwords, tokens (API tokens included), cookies and the
// Authorization header wherever a headers object is logged. The request log line (server.ts)
// carries method, path, status and time only.
export const LOG_REDACT_PATHS = [
  'password',
  'token',
  'authorization',
  '*.password',
  '*.token',
  '*.authorization',
  'headers.cookie',
  'headers.authorization',
  '*.headers.cookie',
  '*.headers.authorization',
];

/** The process's logger (one for server.ts and the Remix build), at LOG_LEVEL. */
export function getLogger(): pino.Logger {
  return singleton('logger', () =>
    pino({
      level: loadEnv().LOG_LEVEL,
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    }),
  );
}
