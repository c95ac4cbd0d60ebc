import pino from 'pino';
import { loadEnv } from './env.server';
import { singleton } from './singleton.server';

/** The process's logger (one for server.ts and the Remix build), at LOG_LEVEL. */
export function getLogger(): pino.Logger {
  return singleton('logger', () =>
    pino({
      level: loadEnv().LOG_LEVEL,
      redact: { paths: ['password', 'token', '*.password', '*.token', 'headers.cookie'], censor: '[redacted]' },
    }),
  );
}
