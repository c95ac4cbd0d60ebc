import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { checkUrl, isBlockedAddress, outboundRequest, OutboundError, type LookupFn } from '../../app/services/outbound.server';
import { createSite, testConnection } from '../../app/services/wordpress/sites.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startPeer, type Peer } from '../support/http-peers';

// ALLOW_PRIVATE_HOSTS is NOT set in this file: the address rule is in force. Every refused target
// is refused before any connection is made (the only traffic here goes to 127.0.0.1 peers that a
// test explicitly allows).

let app: TestApp;
let redirector: Peer;
let hits = 0;
let privateTarget = '';

beforeAll(async () => {
  app = await startTestApp();
  redirector = await startPeer((req, res) => {
    hits++;
    res.writeHead(302, { location: privateTarget });
    res.end();
  });
});
afterAll(async () => {
  await redirector?.close();
  await app?.close();
});

const expectBlocked = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  expect((error as OutboundError).code).toBe('blocked_address');
};

/** A resolver that answers every name with these addresses (a DNS name we control). */
const resolveTo =
  (...addresses: string[]): LookupFn =>
  (_host, _opts, cb) =>
    cb(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('outbound guard (no ALLOW_PRIVATE_HOSTS)', () => {
  it('classifies addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:7f00:1::',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(ip), ip).toBe(false);
    }
  });

  it('refuses other schemes and credentials in URLs', () => {
    expect(() => checkUrl('file:///etc/passwd')).toThrow(OutboundError);
    expect(() => checkUrl('gopher://example.com/')).toThrow(/http/);
    expect(() => checkUrl('http://user:pw@example.com/')).toThrow(OutboundError);
    expect(() => checkUrl('http://[::1]:80/')).toThrow(/private/);
  });

  it('refuses localhost and *.localhost by name, with or without the trailing dot, in any case', async () => {
    // Such names need not resolve (many resolvers answer `localhost.` and `foo.localhost` with
    // nothing), so only their name gives them away; the resolver here answers a public address to
    // prove that the name alone decides.
    for (const target of [
      'http://localhost./',
      'http://LocalHost.:8080/',
      'http://foo.localhost/',
      'http://a.b.localhost./x',
      'http://FOO.LOCALHOST../',
    ]) {
      expect(() => checkUrl(target), target).toThrow(OutboundError);
      await expectBlocked(outboundRequest(target, { lookup: resolveTo('93.184.216.34') }));
      expect(() => checkUrl(target, { allowPrivate: true }), target).not.toThrow();
    }
    for (const target of ['http://localhost.example.com/', 'http://mylocalhost/', 'http://localhostx./'])
      expect(() => checkUrl(target), target).not.toThrow();
    expect(hits).toBe(0);
  });

  it('refuses 127.0.0.1, the metadata address and IPv6 loopback without connecting', async () => {
    await expectBlocked(outboundRequest(`${redirector.url}/`));
    await expectBlocked(outboundRequest('http://169.254.169.254/latest/meta-data/'));
    await expectBlocked(outboundRequest('http://[::ffff:169.254.169.254]/'));
    await expectBlocked(outboundRequest('http://[fd00:ec2::254]/'));
    await expectBlocked(outboundRequest('http://0x7f000001/'));
    expect(hits).toBe(0);
  });

  it('refuses a name that resolves to loopback (localhost, and a name we control) at connection time', async () => {
    await expectBlocked(outboundRequest(`http://localhost:${new URL(redirector.url).port}/`));
    await expectBlocked(
      outboundRequest(`http://wordpress.example.test:${new URL(redirector.url).port}/`, { lookup: resolveTo('127.0.0.1') }),
    );
    // One bad address among good ones is enough to refuse.
    await expectBlocked(outboundRequest('http://mixed.example.test/', { lookup: resolveTo('93.184.216.34', '10.0.0.7') }));
    // DNS rebinding: a name that answered with a public address to an earlier look-up answers with
    // loopback when the socket connects; the connection-time answer is the one checked.
    let calls = 0;
    const rebinding: LookupFn = (host, opts, cb) => resolveTo(calls++ === 0 ? '93.184.216.34' : '127.0.0.1')(host, opts, cb);
    const first = await new Promise<LookupAddress[]>((resolve) => rebinding('rebind.example.test', { all: true }, (_e, a) => resolve(a)));
    expect(first[0]!.address).toBe('93.184.216.34');
    await expectBlocked(outboundRequest(`http://rebind.example.test:${new URL(redirector.url).port}/`, { lookup: rebinding }));
    expect(hits).toBe(0);
  });

  it('checks every redirect: a public-looking site redirecting to a private address is refused', async () => {
    // Only the redirector's own address is let through (as if it were public); its redirect is not.
    const port = new URL(redirector.url).port;
    const onlyRedirector: LookupFn = (host, opts, cb) =>
      (host === 'public.example.test' ? resolveTo('127.0.0.1') : resolveTo('169.254.169.254'))(host, opts, cb);
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      `http://internal.example.test:${port}/`,
      'http://[::1]/',
    ]) {
      privateTarget = target;
      hits = 0;
      const error = await outboundRequest(`http://public.example.test:${port}/`, {
        lookup: onlyRedirector,
        allowPrivate: false,
        ...allowOnly127(),
      }).catch((e: unknown) => e);
      expect(hits, target).toBe(1);
      expect(error, target).toBeInstanceOf(OutboundError);
      expect((error as OutboundError).code, target).toBe('blocked_address');
    }
  });

  it('the connection test and the sites API refuse private addresses', async () => {
    expect(await testConnection({ siteUrl: 'http://169.254.169.254', username: 'a', appPassword: 'b' })).toMatchObject({
      ok: false,
      problem: 'blocked_address',
    });
    expect(await testConnection({ siteUrl: 'http://localhost:1', username: 'a', appPassword: 'b' })).toMatchObject({
      ok: false,
      problem: 'blocked_address',
    });
    const [u] = await sql<
      { id: string }[]
    >`INSERT INTO users (email, name, subscription_status) VALUES (${`ssrf-${Date.now()}@example.com`}, 'S', 'pro') RETURNING id`;
    const client = new TestClient(app.url);
    const { setCookie } = await createSession(u!.id);
    const pair = setCookie.split(';')[0]!;
    client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    const res = await (
      await client.postJson('/api/wordpress/test-connection', { siteUrl: 'http://127.0.0.1:9/', username: 'a', appPassword: 'b' })
    ).json();
    expect(res).toMatchObject({ success: false, diagnosis: { code: 'blocked_address' } });
    expect(res.diagnosis.hint).toMatch(/private or internal/);
  });
});

describe('a site the guard refuses cannot be saved', () => {
  async function signedIn(label: string) {
    const [u] = await sql<
      { id: string }[]
    >`INSERT INTO users (email, name, subscription_status) VALUES (${`ssrf-save-${label}-${Date.now()}@example.com`}, 'S', 'pro') RETURNING id`;
    const client = new TestClient(app.url);
    const { setCookie } = await createSession(u!.id);
    const pair = setCookie.split(';')[0]!;
    client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    return { id: u!.id, client };
  }
  const sites = (userId: string) => sql<{ site_url: string }[]>`SELECT site_url FROM wordpress_sites WHERE user_id = ${userId}`;
  const en =
    'This site cannot be saved: its address points to a private or internal network, which Postforge never connects to. Use the public address of your site.';

  it('the sites API answers 422 with a clear message (en, zh-HK) and saves nothing: IP literals and names resolving to them', async () => {
    const { id, client } = await signedIn('api');
    hits = 0;
    for (const siteUrl of [
      'http://127.0.0.1:9/',
      `http://localhost:${new URL(redirector.url).port}`,
      // Refused by name: names that may not resolve at all when saved.
      `http://localhost.:${new URL(redirector.url).port}/`,
      'http://LOCALHOST./',
      'http://blog.localhost.',
      'https://Blog.Localhost/wp',
      'http://169.254.169.254',
      'http://[::1]/',
    ]) {
      const res = await client.postJson('/api/wordpress/sites', { siteUrl, username: 'a', appPassword: 'b' });
      expect(res.status, siteUrl).toBe(422);
      expect(await res.json(), siteUrl).toMatchObject({ error: en, diagnosis: { code: 'blocked_address' } });
    }
    const zh = await client.postJson(
      '/api/wordpress/sites',
      { siteUrl: 'http://10.1.2.3', username: 'a', appPassword: 'b' },
      { 'accept-language': 'zh-HK' },
    );
    expect(zh.status).toBe(422);
    expect((await zh.json()).error).toBe('無法儲存此網站：其地址指向私人或內部網絡，Postforge 不會連接這類地址。請使用網站的公開地址。');
    const zhName = await client.postJson(
      '/api/wordpress/sites',
      { siteUrl: 'http://wp.localhost.', username: 'a', appPassword: 'b' },
      { 'accept-language': 'zh-HK' },
    );
    expect(zhName.status).toBe(422);
    expect((await zhName.json()).error).toBe(
      '無法儲存此網站：其地址指向私人或內部網絡，Postforge 不會連接這類地址。請使用網站的公開地址。',
    );
    expect(await sites(id)).toEqual([]);
    expect(hits).toBe(0);
  });

  it('an update to a refused address is refused and the stored site stays; DNS answers are checked when saving', async () => {
    const { id, client } = await signedIn('update');
    // A name we control: public when the site is added, private later.
    const site = await createSite(
      id,
      { siteUrl: 'https://blog.example.test', username: 'a', appPassword: 'b', isDefault: true },
      {
        lookup: resolveTo('93.184.216.34'),
      },
    );
    await expect(
      createSite(
        id,
        { siteUrl: 'https://intranet.example.test', username: 'a', appPassword: 'b', isDefault: false },
        {
          lookup: resolveTo('93.184.216.34', '10.0.0.7'),
        },
      ),
    ).rejects.toMatchObject({ code: 'blocked_url' });
    const res = await client.request(`/api/wordpress/sites/${site.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ siteUrl: 'http://192.168.1.10', username: 'a', appPassword: '' }),
    });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe(en);
    expect(await sites(id)).toEqual([{ site_url: 'https://blog.example.test' }]);
  });

  it('the sites page (no JavaScript) shows the reason on the URL field, keeps what was typed, saves nothing', async () => {
    const { id, client } = await signedIn('page');
    const res = await client.postForm('/wordpress?add=1', {
      intent: 'create',
      siteUrl: 'http://127.0.0.1:9',
      username: 'page-user',
      appPassword: 'secret pass word',
    });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(en);
    expect(html).toContain('value="page-user"');
    expect(html).not.toContain('secret pass word');
    expect(await sites(id)).toEqual([]);
  });
});

/**
 * Lets exactly the redirector's loopback address through for the first hop, as a stand-in for a
 * public site; everything else stays under the address rule.
 */
function allowOnly127() {
  return { allowAddress: (ip: string) => ip === '127.0.0.1' };
}
