import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { refuseBusy, takeTurns, type LineLimits } from '../../server';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(
  slots: number,
  slotMs: number,
  handler: RequestHandler,
  before?: RequestHandler,
  limits?: LineLimits,
): Promise<string> {
  const app = express();
  if (before) app.use(before);
  app.use(takeTurns(slots, slotMs, limits));
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

  it('refuses at once with a translated 503 and Retry-After when the line is full, without running the request', async () => {
    const hold = gate();
    const firstStarted = gate();
    const waiterArrived = gate();
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
      (req, _res, next) => {
        if (req.path === '/waiter') waiterArrived.open();
        next();
      },
      { maxWaiting: 1, maxWaitMs: 600_000, refuse: refuseBusy },
    );
    const first = fetch(`${url}/first`).then((r) => r.text());
    await firstStarted.opened;
    const waiter = fetch(`${url}/waiter`).then((r) => r.text());
    await waiterArrived.opened;
    // One holds the turn, one waits: the line (1) is full, so these two are refused at once.
    const page = await fetch(`${url}/page`, { headers: { 'accept-language': 'zh-HK', accept: 'text/html' } });
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('Postforge 目前太繁忙，請過幾秒再試。');
    expect(html).not.toMatch(/<script/i);
    const api = await fetch(`${url}/api`, { headers: { 'accept-language': 'en', accept: 'application/json' } });
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await api.json()).toEqual({ error: 'Postforge is busy right now. Please try again in a few seconds.' });
    hold.open();
    expect(await first).toBe('first');
    expect(await waiter).toBe('waiter');
    expect(ran).toEqual(['first', 'waiter']);
    // The line has room again.
    expect(await (await fetch(`${url}/after`)).text()).toBe('after');
  });

  it('refuses a request that waited longer than the wait limit, and gives its place to the next', async () => {
    const hold = gate();
    const firstStarted = gate();
    const ran: string[] = [];
    const refused: string[] = [];
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
      undefined,
      {
        maxWaiting: 1,
        maxWaitMs: 50,
        refuse: (req, res) => {
          refused.push(req.params.id ?? req.path.slice(1));
          res.status(503).set('Retry-After', '5').send('busy');
        },
      },
    );
    const first = fetch(`${url}/first`).then((r) => r.text());
    await firstStarted.opened;
    // The only turn is held for as long as the test likes: this one waits out its limit.
    const late = await fetch(`${url}/late`);
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('5');
    // It left the line: the next one may wait there (and is refused the same way, not at once).
    const next = await fetch(`${url}/next`);
    expect(next.status).toBe(503);
    hold.open();
    expect(await first).toBe('first');
    expect(refused).toEqual(['late', 'next']);
    expect(ran).toEqual(['first']);
  });

  it('lets a client that left while waiting leave the line (it no longer counts against its length)', async () => {
    const hold = gate();
    const firstStarted = gate();
    const leftArrived = gate();
    const leftClosed = gate();
    const url = await serve(
      1,
      60_000,
      async (req, res) => {
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
      { maxWaiting: 1, maxWaitMs: 600_000, refuse: (_req, res) => void res.status(503).send('busy') },
    );
    const first = fetch(`${url}/first`).then((r) => r.text());
    await firstStarted.opened;
    const leaving = new AbortController();
    const left = fetch(`${url}/left`, { signal: leaving.signal }).catch(() => 'aborted');
    await leftArrived.opened;
    leaving.abort();
    expect(await left).toBe('aborted');
    await leftClosed.opened;
    // Its place is free: this one waits instead of being refused.
    const waiter = fetch(`${url}/waiter`).then((r) => r.status);
    hold.open();
    expect(await first).toBe('first');
    expect(await waiter).toBe(200);
  });
});
