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
  it('lets at most `slots` requests in at once and the others in order of arrival', async () => {
    let active = 0;
    let most = 0;
    const started: string[] = [];
    const url = await serve(2, 60_000, async (req, res) => {
      started.push(req.params.id!);
      most = Math.max(most, ++active);
      await pause(40);
      active--;
      res.send(req.params.id);
    });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const answers: Promise<string>[] = [];
    for (const id of ids) {
      answers.push(fetch(`${url}/${id}`).then((r) => r.text()));
      await pause(10);
    }
    expect(await Promise.all(answers)).toEqual(ids);
    expect(most).toBe(2);
    expect(started).toEqual(ids);
  });

  it('gives a turn on when its request has waited out the slot time (a slow site holds no one up)', async () => {
    const slow = gate();
    const url = await serve(1, 100, async (req, res) => {
      if (req.params.id === 'slow') await slow.opened;
      res.send(req.params.id);
    });
    let slowDone = false;
    const first = fetch(`${url}/slow`).then(async (r) => {
      slowDone = true;
      return r.text();
    });
    await pause(10);
    // Without the slot time this would wait for the slow request, which waits for this one.
    expect(await (await fetch(`${url}/fast`)).text()).toBe('fast');
    expect(slowDone).toBe(false);
    slow.open();
    expect(await first).toBe('slow');
  });

  it('gives the turn of a client that left while waiting to the next one', async () => {
    const hold = gate();
    const ran: string[] = [];
    const url = await serve(1, 60_000, async (req, res) => {
      ran.push(req.params.id!);
      if (req.params.id === 'first') await hold.opened;
      res.send(req.params.id);
    });
    const first = fetch(`${url}/first`).then((r) => r.text());
    await pause(20);
    const leaving = new AbortController();
    const left = fetch(`${url}/left`, { signal: leaving.signal }).catch(() => 'aborted');
    await pause(20);
    leaving.abort();
    expect(await left).toBe('aborted');
    await pause(20);
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
