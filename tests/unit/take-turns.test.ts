import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { takeTurns } from '../../server';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(slots: number, slotMs: number, handler: RequestHandler, before?: RequestHandler): Promise<string> {
  const app = express();
  if (before) app.use(before);
  app.use(takeTurns(slots, slotMs));
  app.get('/:id', handler);
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('takeTurns', () => {
  it('lets at most `slots` requests in at once and the others in the order they reached it', async () => {
    let active = 0;
    let most = 0;
    const arrived: string[] = [];
    const started: string[] = [];
    const url = await serve(
      2,
      60_000,
      async (req, res) => {
        started.push(req.params.id!);
        most = Math.max(most, ++active);
        await pause(40);
        active--;
        res.send(req.params.id);
      },
      (req, _res, next) => {
        arrived.push(req.path.slice(1));
        next();
      },
    );
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(await Promise.all(ids.map((id) => fetch(`${url}/${id}`).then((r) => r.text())))).toEqual(ids);
    expect(most).toBe(2);
    expect([...arrived].sort()).toEqual(ids);
    expect(started).toEqual(arrived);
  });

  it('gives a turn on when its request has waited out the slot time (a slow site holds no one up)', async () => {
    const slow = gate();
    const slowStarted = gate();
    const url = await serve(1, 100, async (req, res) => {
      if (req.params.id === 'slow') {
        slowStarted.open();
        await slow.opened;
      }
      res.send(req.params.id);
    });
    let slowDone = false;
    const first = fetch(`${url}/slow`).then(async (r) => {
      slowDone = true;
      return r.text();
    });
    await slowStarted.opened;
    // The slow request holds the only turn: without the slot time this one would wait for it,
    // and it waits for this one.
    expect(await (await fetch(`${url}/fast`)).text()).toBe('fast');
    expect(slowDone).toBe(false);
    slow.open();
    expect(await first).toBe('slow');
  });

  it('gives the turn of a client that left while waiting to the next one', async () => {
    const hold = gate();
    const firstStarted = gate();
    const leftArrived = gate();
    const leftClosed = gate();
    const ran: string[] = [];
    const url = await serve(
      1,
      60_000,
      async (req, res) => {
        ran.push(req.params.id!);
        if (req.params.id === 'first') {
          firstStarted.open();
          await hold.opened;
        }
        res.send(req.params.id);
      },
      (req, res, next) => {
        if (req.path === '/left') {
          res.once('close', leftClosed.open);
          leftArrived.open();
        }
        next();
      },
    );
    const first = fetch(`${url}/first`).then((r) => r.text());
    await firstStarted.opened;
    const leaving = new AbortController();
    const left = fetch(`${url}/left`, { signal: leaving.signal }).catch(() => 'aborted');
    await leftArrived.opened;
    leaving.abort();
    expect(await left).toBe('aborted');
    // The server has seen the client go while its request was still waiting for the turn.
    await leftClosed.opened;
    hold.open();
    expect(await first).toBe('first');
    expect(await (await fetch(`${url}/next`)).text()).toBe('next');
    expect(ran).toEqual(['first', 'next']);
  });

  it('runs a request that waited in its own async context, not in that of the request whose end let it in', async () => {
    const scope = new AsyncLocalStorage<string>();
    const seen: [string, string | undefined][] = [];
    const url = await serve(
      1,
      60_000,
      async (req, res) => {
        seen.push([req.params.id!, scope.getStore()]);
        await pause(20);
        res.send('ok');
      },
      (req, _res, next) => scope.run(req.path.slice(1), next),
    );
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => fetch(`${url}/${id}`).then((r) => r.text())));
    expect(seen).toHaveLength(4);
    for (const [id, store] of seen) expect(store).toBe(id);
  });
});
