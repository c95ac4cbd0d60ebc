import pino from 'pino';

// One logger per process (shared by server.ts and the Remix build through globalThis).
const holder = globalThis as unknown as { __postforgeLogger?: pino.Logger };

export function getLogger(): pino.Logger {
  holder.__postforgeLogger ??= pino({
    level: process.env.LOG_LEVEL || 'info',
    redact: { paths: ['password', 'token', '*.password', '*.token', 'headers.cookie'], censor: '[redacted]' },
  });
  return holder.__postforgeLogger;
}
