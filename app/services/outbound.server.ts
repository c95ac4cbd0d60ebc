import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { AppError } from '~/utils/app-error';
import { env } from '~/runtime/env.server';
import { OUTBOUND_FAILURES } from '~/utils/outbound-failures';

// THE one way to call a host a user gave us (WordPress sites). Only http(s); the host's addresses
// are checked when the socket connects (a custom `lookup`, so a DNS answer that changes between a
// check and the connection cannot slip through) and again for every redirect, which we follow by
// hand; IP literals and localhost names are checked before connecting. Loopback, private,
// link-local, CGNAT, cloud metadata, unspecified, multicast, reserved and IPv4-mapped/NAT64 forms of
// those are refused, and so are `localhost` and the names under it (whatever they resolve to),
// unless ALLOW_PRIVATE_HOSTS=true (development and tests). A service the operator configured (a
// self-hosted search engine) may be named as trusted: its own host is exempt, not where it redirects.
// Every call has a deadline and a cap on the response size.

// The codes live in utils, so pages can explain a stored one.
export const OUTBOUND_ERROR_CODES = OUTBOUND_FAILURES;
export type OutboundErrorCode = (typeof OUTBOUND_ERROR_CODES)[number];

/**
 * A call we refused to make or that failed on the way. Users read its code (`developer:outbound.<code>`,
 * or a WordPress site's diagnosis); the message is English for logs and may name a host or address.
 */
export class OutboundError extends AppError<'developer', OutboundErrorCode> {
  constructor(code: OutboundErrorCode, message: string) {
    super('developer', code, `outbound.${code}`, message);
    this.name = 'OutboundError';
  }
}

// ---------------------------------------------------------------------------------------------
// Address policy

const v4Blocked: [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const v6Blocked: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (includes fd00:ec2::254, the AWS metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
const blockList = new net.BlockList();
for (const [a, p] of v4Blocked) blockList.addSubnet(a, p, 'ipv4');
for (const [a, p] of v6Blocked) blockList.addSubnet(a, p, 'ipv6');

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase().split('%')[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const parts = v4Tail[1]!.split('.').map(Number);
    text =
      text.slice(0, -v4Tail[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const fill = text.includes('::') ? 8 - h.length - t.length : 0;
  const groups = [...h, ...Array<string>(Math.max(0, fill)).fill('0'), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** True for an address a user-given host must never make us connect to. */
export function isBlockedAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return blockList.check(ip, 'ipv4');
  if (family !== 6) return true;
  const g = ipv6Groups(ip);
  if (!g) return true;
  const embeddedV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d)
  // and NAT64 (64:ff9b::a.b.c.d) forms are judged by the IPv4 address inside.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    if (g[5] === 0 && g[6] === 0 && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
    return isBlockedAddress(embeddedV4(g[6]!, g[7]!));
  }
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0xffff && g[5] === 0)
    return isBlockedAddress(embeddedV4(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isBlockedAddress(embeddedV4(g[6]!, g[7]!));
  // 6to4 (2002:a.b.c.d::/48) carries an IPv4 address too.
  if (g[0] === 0x2002) return isBlockedAddress(embeddedV4(g[1]!, g[2]!));
  return blockList.check(ip, 'ipv6');
}

export type LookupFn = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemLookup: LookupFn = (hostname, options, callback) => dns.lookup(hostname, options, callback);

type AddressRule = { allowPrivate: boolean; allowAddress?: (ip: string) => boolean; trustedHost?: string };

function refused(ip: string, rule: AddressRule): boolean {
  return !rule.allowPrivate && isBlockedAddress(ip) && !rule.allowAddress?.(ip);
}

const hostName = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '');

/** The host the operator configured as trusted (their own service, often on a private network). */
function isTrusted(hostname: string, rule: AddressRule): boolean {
  return rule.trustedHost !== undefined && hostName(hostname) === hostName(rule.trustedHost);
}

/** A `lookup` for sockets that refuses names resolving to any blocked address. */
function guardedLookup(rule: AddressRule, resolve: LookupFn): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses ?? [];
      if (list.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }));
      const bad = isTrusted(hostname, rule) ? undefined : list.find((a) => refused(a.address, rule));
      if (bad)
        return callback(new OutboundError('blocked_address', `${hostname} resolves to a private or reserved address (${bad.address})`));
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }) as net.LookupFunction;
}

/**
 * True for `localhost` and any name under it, in any case and with trailing dots. Such names belong
 * to this machine (RFC 6761), yet `localhost.` and `foo.localhost` may not resolve when a URL is
 * saved (the system resolver answers them from the hosts file only without the dot, if at all), so
 * the name alone must refuse them.
 */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Throws unless the URL is http(s) and its host is neither a localhost name nor a refused IP literal. */
export function checkUrl(raw: string | URL, rule: AddressRule = { allowPrivate: env.ALLOW_PRIVATE_HOSTS }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('bad_url', 'Not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad_scheme', 'Only http and https URLs are allowed');
  if (url.username || url.password) throw new OutboundError('bad_url', 'URLs with credentials are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isTrusted(host, rule)) return url;
  if (net.isIP(host) && refused(host, rule)) {
    throw new OutboundError('blocked_address', `${host} is a private or reserved address`);
  }
  if (!rule.allowPrivate && isLocalhostName(host)) {
    throw new OutboundError('blocked_address', `${host} names this machine, a private or reserved address`);
  }
  return url;
}

/**
 * The address rule for a URL about to be stored (a WordPress site being saved), so a site we would
 * refuse to call cannot be saved either: the scheme, an IP literal or a localhost name, and every
 * address the name resolves to now. A name that does not resolve (yet) is let through: every later
 * call is guarded again when its socket connects.
 */
export async function checkUrlAddresses(
  raw: string,
  options: Pick<OutboundOptions, 'allowPrivate' | 'lookup' | 'allowAddress'> = {},
): Promise<URL> {
  const rule: AddressRule = { allowPrivate: options.allowPrivate ?? env.ALLOW_PRIVATE_HOSTS, allowAddress: options.allowAddress };
  const url = checkUrl(raw, rule);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (rule.allowPrivate || net.isIP(host)) return url;
  const resolve = options.lookup ?? systemLookup;
  const addresses = await new Promise<dns.LookupAddress[]>((done) => {
    const timer = setTimeout(() => done([]), 5_000);
    resolve(host, { all: true }, (err, list) => {
      clearTimeout(timer);
      done(err ? [] : (list ?? []));
    });
  });
  const bad = addresses.find((a) => refused(a.address, rule));
  if (bad) throw new OutboundError('blocked_address', `${host} resolves to a private or reserved address (${bad.address})`);
  return url;
}

// ---------------------------------------------------------------------------------------------
// Requests

export type OutboundOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Deadline for the whole exchange of one hop (connect, send, receive). */
  timeoutMs?: number;
  /** Largest response body accepted. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Defaults to ALLOW_PRIVATE_HOSTS. */
  allowPrivate?: boolean;
  /** Name resolution (tests use their own to play DNS tricks); the address rule applies to its answers. */
  lookup?: LookupFn;
  /** Exceptions to the address rule (tests: a loopback peer standing in for a public site). */
  allowAddress?: (ip: string) => boolean;
  /**
   * The host of a service the operator configured (never one a user gave): exempt from the address
   * rule, as it is often self-hosted on a private network. A redirect to another host is judged.
   */
  trustedHost?: string;
};

export type OutboundResponse = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
  text(): string;
  json<T = unknown>(): T | undefined;
};

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

function classify(error: NodeJS.ErrnoException): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') {
    return new OutboundError('dns', `The host name could not be resolved (${code})`);
  }
  if (code === 'ECONNREFUSED') return new OutboundError('refused', 'The connection was refused');
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return new OutboundError('timeout', 'The site did not answer in time');
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|EPROTO/i.test(code) || /certificate|ssl|tls/i.test(error.message)) {
    return new OutboundError('tls', `TLS error: ${error.message}`);
  }
  return new OutboundError('network', error.message || code || 'Network error');
}

function oneHop(
  url: URL,
  opts: Required<Pick<OutboundOptions, 'timeoutMs' | 'maxBytes' | 'allowPrivate'>> & OutboundOptions,
): Promise<OutboundResponse> {
  const rule: AddressRule = { allowPrivate: opts.allowPrivate, allowAddress: opts.allowAddress, trustedHost: opts.trustedHost };
  const lib = url.protocol === 'https:' ? https : http;
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const fail = (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(classify(error));
    };
    const req = lib.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { 'User-Agent': 'Postforge/1.0', ...opts.headers, ...(body ? { 'Content-Length': String(body.length) } : {}) },
        agent: false,
        lookup: guardedLookup(rule, opts.lookup ?? systemLookup),
      },
      (res) => {
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > opts.maxBytes) return fail(new OutboundError('too_large', 'The response is too large'));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) return fail(new OutboundError('too_large', 'The response is too large'));
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const buf = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            url: url.toString(),
            text: () => buf.toString('utf8'),
            json: <T>() => {
              try {
                // WordPress may prefix JSON with a byte-order mark or stray output from a plugin.
                return JSON.parse(buf.toString('utf8').replace(/^\uFEFF/, '')) as T;
              } catch {
                return undefined;
              }
            },
          });
        });
      },
    );
    const timer = setTimeout(() => fail(new OutboundError('timeout', 'The site did not answer in time')), opts.timeoutMs);
    req.on('error', fail);
    if (body) req.end(body);
    else req.end();
  });
}

/** One request to a user-given host, following up to maxRedirects redirects, each one checked. */
export async function outboundRequest(target: string | URL, options: OutboundOptions = {}): Promise<OutboundResponse> {
  const allowPrivate = options.allowPrivate ?? env.ALLOW_PRIVATE_HOSTS;
  const opts = { timeoutMs: DEFAULT_TIMEOUT_MS, maxBytes: DEFAULT_MAX_BYTES, maxRedirects: 3, ...options, allowPrivate };
  const rule: AddressRule = { allowPrivate, allowAddress: options.allowAddress, trustedHost: options.trustedHost };
  let url = checkUrl(target, rule);
  let method = (opts.method ?? 'GET').toUpperCase();
  let body = opts.body;
  let headers = { ...opts.headers };
  for (let hop = 0; ; hop++) {
    const res = await oneHop(url, { ...opts, method, body, headers });
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(res.status) || !location) return res;
    if (hop >= opts.maxRedirects) throw new OutboundError('too_many_redirects', 'Too many redirects');
    const next = checkUrl(new URL(location, url), rule);
    // Credentials go only to the same host (http → https on one host keeps them).
    if (next.hostname !== url.hostname) {
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|cookie)$/i.test(k)));
    }
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    url = next;
  }
}
