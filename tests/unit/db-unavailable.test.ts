import { describe, expect, it } from 'vitest';
import { isConnectionLost, isDatabaseUnavailable, onceMoreIfLost } from '../../app/runtime/db-unavailable.server';

// What counts as the database failing (a 503, not a 500), as each layer under the app says it, and
// which of those are a connection lost under a request (worth one more try) rather than a database
// that cannot be reached.

const pgError = (code: string, severity = 'ERROR', message = 'x') =>
  Object.assign(new Error(message), { name: 'PostgresError', code, severity });
const sysError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a backend terminated by an administrator (57P01, FATAL)', pgError('57P01', 'FATAL'), 'lost'],
    ['postgres.js: the socket closed under a query', sysError('CONNECTION_CLOSED'), 'lost'],
    ['a reset socket', sysError('ECONNRESET'), 'lost'],
    ['a connection failure (class 08)', pgError('08006'), 'lost'],
    ['any FATAL error from Postgres (the session is over)', pgError('XX000', 'FATAL'), 'lost'],
    ['pg (under pg-boss): terminated unexpectedly', new Error('Connection terminated unexpectedly'), 'lost'],
    ['a wrapper whose cause is a lost connection', new Error('enqueue failed', { cause: pgError('57P01', 'FATAL') }), 'lost'],
    ['refused', sysError('ECONNREFUSED'), 'unreachable'],
    ['postgres.js: connect timeout', sysError('CONNECT_TIMEOUT'), 'unreachable'],
    ['starting up or shutting down (57P03)', pgError('57P03', 'FATAL'), 'unreachable'],
    ['too many connections', pgError('53300', 'FATAL'), 'unreachable'],
    ['pg: connect timeout', new Error('timeout exceeded when trying to connect'), 'unreachable'],
    ['every address refused', new AggregateError([sysError('ECONNREFUSED'), sysError('ECONNREFUSED')]), 'unreachable'],
  ])('%s', (_what, err, kind) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isConnectionLost(err)).toBe(kind === 'lost');
  });

  it.each([
    ['a bad query', pgError('42P01')],
    ['a unique violation', pgError('23505')],
    ['a statement timeout', pgError('57014')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a message alike, with a code of its own', Object.assign(new Error('Connection terminated'), { code: 'E_OTHER' })],
    ['nothing', undefined],
  ])('not %s', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(isConnectionLost(err)).toBe(false);
  });
});

describe('onceMoreIfLost', () => {
  it('reads again once after a lost connection', async () => {
    let calls = 0;
    expect(await onceMoreIfLost(async () => (++calls === 1 ? Promise.reject(sysError('CONNECTION_CLOSED')) : 'row'))).toBe('row');
    expect(calls).toBe(2);
  });

  it('does not read again for a database that cannot be reached, nor a second time', async () => {
    let calls = 0;
    await expect(onceMoreIfLost(() => (calls++, Promise.reject(sysError('ECONNREFUSED'))))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBe(1);
    calls = 0;
    await expect(onceMoreIfLost(() => (calls++, Promise.reject(pgError('57P01', 'FATAL'))))).rejects.toMatchObject({ code: '57P01' });
    expect(calls).toBe(2);
  });
});
