import crypto from 'node:crypto';

// Every request the web process serves gets an id of its own: server.ts sets it on the request
// (so the Remix build reads it from the same header) and answers it in X-Request-Id, and every log
// line about the request carries it, so an operator can go from a user's answer to its log lines.
// An id a client sends is replaced: only ours reach the logs.

export const REQUEST_ID_HEADER = 'x-request-id';

export const newRequestId = (): string => crypto.randomUUID();

/** The id server.ts gave this (Fetch) request, if it came through server.ts. */
export const requestIdOf = (request: Request): string | undefined => request.headers.get(REQUEST_ID_HEADER) ?? undefined;
