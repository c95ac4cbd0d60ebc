import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import { plans, topUpPacks } from '../../app/catalogue';

// A Stripe-compatible HTTP test server: the parts of the API Postforge calls (customers, Checkout
// Sessions, subscriptions, invoices, refunds, the billing portal), a hosted checkout page that
// "pays" and redirects back, and webhook events signed exactly as Stripe signs them
// (`Stripe-Signature: t=...,v1=HMAC-SHA256(secret, t + '.' + payload)`). The app reaches it through
// STRIPE_API_BASE. Test controls live under /_test/ (and as methods on the returned object).

type Obj = Record<string, unknown> & { id: string };

export type StripeEvent = {
  id: string;
  object: 'event';
  type: string;
  created: number;
  data: { object: Obj };
  api_version: string;
  livemode: false;
};

export type TestStripe = {
  url: string;
  secretKey: string;
  webhookSecret: string;
  prices: { pro: string; topup100: string; topup360: string; topup1170: string };
  /** Where events go (the app's /webhooks/stripe); null keeps them undelivered. */
  setWebhookUrl(url: string | null): void;
  /** Deliver new events automatically (default) or only keep them for the test to send. */
  setAutoDeliver(on: boolean): void;
  events: StripeEvent[];
  eventsOf(type: string): StripeEvent[];
  /** Posts one event to the webhook URL, signed (or with a given signature header). */
  deliver(event: StripeEvent, opts?: { signature?: string; timestamp?: number }): Promise<Response>;
  sign(payload: string, timestamp?: number): string;
  /** Pays an open Checkout Session as the hosted page would (returns the success URL). */
  pay(sessionId: string): Promise<string>;
  /** The next period of a subscription is invoiced and paid (invoice.paid). */
  renew(subscriptionId: string): Promise<Obj>;
  /** The subscription ends now (customer.subscription.deleted). */
  endSubscription(subscriptionId: string): Promise<Obj>;
  /**
   * Refunds a charge in full, or `amount` (minor units) more of it: one refund object, and
   * charge.refunded with the running total (and, in Stripe's shape, every refund object so far).
   */
  refund(paymentIntentId: string, amount?: number): Promise<Obj>;
  /** The next `times` requests to `METHOD /v1/path` (e.g. 'GET /v1/invoices') fail with `status` (0 times: stop failing). */
  failRequests(route: string, times: number, status?: number): void;
  /** The shape of the charges of refunds made from now on. */
  setRefundShape(shape: RefundShape): void;
  /** A subscription made outside the app's Checkout (the dashboard): created, invoiced and paid. */
  subscribe(customerId: string, metadata?: Record<string, string>): Promise<Obj>;
  objects: Map<string, Obj>;
  close(): Promise<void>;
};

const now = () => Math.floor(Date.now() / 1000);
const MONTH = 30 * 24 * 3600;

/**
 * How a charge reports its refunds. 'stripe' (the default) is Stripe's own: one charge, one refund
 * object (`re_…`, its own amount) per refund, listed newest first in `charge.refunds`, beside the
 * running total `amount_refunded`. 'cumulative' is the older test shape: the running total only,
 * so the app is also proven against a payload that names no refund object.
 */
export type RefundShape = 'stripe' | 'cumulative';

export async function startStripeServer(opts: { webhookUrl?: string | null; refundShape?: RefundShape } = {}): Promise<TestStripe> {
  let refundShape = opts.refundShape ?? 'stripe';
  const secretKey = `sk_test_${crypto.randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${crypto.randomBytes(16).toString('hex')}`;
  const objects = new Map<string, Obj>();
  // Stripe's idempotency: the first answer for a key is replayed; the same key with other
  // parameters is a 400, and while the first request runs a second one gets a 409 (retried by
  // the client, like Stripe's idempotency_key_in_use).
  const idempotent = new Map<string, { params: string; answer: Obj }>();
  const inFlight = new Set<string>();
  const events: StripeEvent[] = [];
  let webhookUrl = opts.webhookUrl ?? null;
  let autoDeliver = true;
  let base = '';
  let seq = 0;
  const newId = (prefix: string) => `${prefix}_test_${(++seq).toString(36)}${crypto.randomBytes(6).toString('hex')}`;

  const prices = {
    pro: 'price_test_pro',
    topup100: 'price_test_topup_100',
    topup360: 'price_test_topup_360',
    topup1170: 'price_test_topup_1170',
  };
  // The dashboard's prices are set up from the catalogue (docs/finance.md, Billing), so the test account's are too.
  const packCents = (id: string) => topUpPacks.find((p) => p.id === id)!.priceCents;
  const proCents = plans.pro.priceCents;
  const priceAmounts: Record<string, { amount: number; recurring: boolean }> = {
    [prices.pro]: { amount: proCents, recurring: true },
    [prices.topup100]: { amount: packCents('topup-100'), recurring: false },
    [prices.topup360]: { amount: packCents('topup-360'), recurring: false },
    [prices.topup1170]: { amount: packCents('topup-1170'), recurring: false },
  };

  const save = (o: Obj) => (objects.set(o.id, o), o);

  const sign = (payload: string, timestamp = now()) => {
    const v1 = crypto.createHmac('sha256', webhookSecret).update(`${timestamp}.${payload}`).digest('hex');
    return `t=${timestamp},v1=${v1}`;
  };

  const deliver = async (event: StripeEvent, o: { signature?: string; timestamp?: number } = {}) => {
    if (!webhookUrl) throw new Error('No webhook URL set');
    const payload = JSON.stringify(event, null, 2);
    return fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': o.signature ?? sign(payload, o.timestamp),
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    });
  };

  // Requests made to fail (`METHOD /path` → how many more times, and with which status).
  const failures = new Map<string, { times: number; status: number }>();

  // Events of payments made with ?hold=webhooks on the hosted page, by session, until released.
  const held = new Map<string, StripeEvent[]>();

  const emit = async (type: string, object: Obj, holdFor?: string) => {
    const event: StripeEvent = {
      id: newId('evt'),
      object: 'event',
      type,
      created: now(),
      data: { object: structuredClone(object) },
      api_version: '2026-10-28.endive',
      livemode: false,
    };
    events.push(event);
    if (holdFor) held.set(holdFor, [...(held.get(holdFor) ?? []), event]);
    else if (autoDeliver && webhookUrl) {
      // Like Stripe: retried until a 2xx (a few quick tries is enough here).
      for (let i = 0; i < 5; i++) {
        try {
          if ((await deliver(event)).ok) break;
        } catch {
          // app not reachable: try again
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return event;
  };

  const expand = (o: Obj, paths: string[]): Obj => {
    const copy = structuredClone(o) as Obj;
    for (const p of paths) {
      const v = copy[p];
      if (typeof v === 'string' && objects.has(v)) copy[p] = structuredClone(objects.get(v)!);
    }
    return copy;
  };

  function makeInvoice(sub: Obj, start: number, end: number, reason: string): Obj {
    const charge = save({
      id: newId('ch'),
      object: 'charge',
      amount: proCents,
      currency: 'usd',
      amount_refunded: 0,
      refunded: false,
      payment_intent: newId('pi'),
      customer: sub.customer,
    });
    return save({
      id: newId('in'),
      object: 'invoice',
      customer: sub.customer,
      status: 'paid',
      billing_reason: reason,
      amount_paid: proCents,
      currency: 'usd',
      period_start: start,
      period_end: end,
      created: now(),
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata ?? {} },
      },
      lines: {
        object: 'list',
        data: [{ id: newId('il'), object: 'line_item', amount: proCents, period: { start, end } }],
        has_more: false,
      },
      charge: charge.id,
    });
  }

  function newSubscription(customer: unknown, metadata: object): Obj {
    const t = now();
    return save({
      id: newId('sub'),
      object: 'subscription',
      customer,
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      created: t,
      metadata,
      items: {
        object: 'list',
        data: [
          {
            id: newId('si'),
            object: 'subscription_item',
            price: { id: prices.pro },
            current_period_start: t,
            current_period_end: t + MONTH,
          },
        ],
      },
    });
  }

  async function subscribe(customerId: string, metadata: Record<string, string> = {}): Promise<Obj> {
    const sub = newSubscription(customerId, metadata);
    const t = now();
    const invoice = makeInvoice(sub, t, t + MONTH, 'subscription_create');
    await emit('customer.subscription.created', sub);
    await emit('invoice.paid', invoice);
    return sub;
  }

  /** An invoice as the API returns it; `payments` only when expanded (as Stripe does). */
  function invoiceView(inv: Obj, expandPayments: boolean): Obj {
    if (!expandPayments) return inv;
    const charge = objects.get(String(inv.charge));
    const payments = charge
      ? [
          {
            id: `inpay_${charge.id}`,
            object: 'invoice_payment',
            invoice: inv.id,
            amount_paid: charge.amount,
            currency: 'usd',
            status: 'paid',
            payment: { type: 'payment_intent', payment_intent: charge.payment_intent },
          },
        ]
      : [];
    return { ...inv, payments: { object: 'list', data: payments, has_more: false } };
  }

  async function paySession(id: string, holdWebhooks = false): Promise<string> {
    const session = objects.get(id);
    if (!session || session.object !== 'checkout.session') throw new Error(`No session ${id}`);
    if (session.status !== 'complete') {
      const t = now();
      const hold = holdWebhooks ? id : undefined;
      if (session.mode === 'subscription') {
        const sub = newSubscription(session.customer, (session.subscription_data as { metadata?: object } | undefined)?.metadata ?? {});
        const invoice = makeInvoice(sub, t, t + MONTH, 'subscription_create');
        Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: sub.id, invoice: invoice.id });
        await emit('customer.subscription.created', sub, hold);
        await emit('checkout.session.completed', session, hold);
        await emit('invoice.paid', invoice, hold);
      } else {
        const pi = newId('pi');
        const amount = priceAmounts[(session.line_items as { price: string }[])[0]!.price]?.amount ?? 0;
        save({
          id: newId('ch'),
          object: 'charge',
          amount,
          currency: 'usd',
          amount_refunded: 0,
          refunded: false,
          payment_intent: pi,
          customer: session.customer,
        });
        Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: pi });
        await emit('checkout.session.completed', session, hold);
      }
    }
    return String(session.success_url).replace('{CHECKOUT_SESSION_ID}', id);
  }

  async function renew(subId: string): Promise<Obj> {
    const sub = objects.get(subId)!;
    const item = (sub.items as { data: { current_period_start: number; current_period_end: number }[] }).data[0]!;
    item.current_period_start = item.current_period_end;
    item.current_period_end = item.current_period_start + MONTH;
    const invoice = makeInvoice(sub, item.current_period_start, item.current_period_end, 'subscription_cycle');
    await emit('invoice.paid', invoice);
    return invoice;
  }

  async function endSubscription(subId: string): Promise<Obj> {
    const sub = objects.get(subId)!;
    Object.assign(sub, { status: 'canceled', ended_at: now(), canceled_at: sub.canceled_at ?? now() });
    await emit('customer.subscription.deleted', sub);
    return sub;
  }

  async function refund(piId: string, chargeId?: string, amount?: number): Promise<Obj> {
    const charge = [...objects.values()].find((o) => o.object === 'charge' && (chargeId ? o.id === chargeId : o.payment_intent === piId));
    if (!charge) throw new Error(`No charge for ${chargeId ?? piId}`);
    if (charge.refunded)
      throw Object.assign(new Error(`Charge ${charge.id} has already been refunded.`), { code: 'charge_already_refunded' });
    const total = charge.amount as number;
    const before = charge.amount_refunded as number;
    const now = Math.min(total, before + (amount ?? total - before));
    Object.assign(charge, { amount_refunded: now, refunded: now >= total });
    const r = save({
      id: newId('re'),
      object: 'refund',
      amount: now - before,
      currency: charge.currency,
      created: Math.floor(Date.now() / 1000),
      charge: charge.id,
      payment_intent: charge.payment_intent,
      status: 'succeeded',
    });
    if (refundShape === 'stripe') {
      const list = (charge.refunds as { data: Obj[] } | undefined)?.data ?? [];
      charge.refunds = { object: 'list', data: [structuredClone(r), ...list], has_more: false, url: `/v1/charges/${charge.id}/refunds` };
    }
    await emit('charge.refunded', charge);
    return r;
  }

  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let data = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (data += c));
      req.on('end', () => resolve(data));
      req.on('error', reject);
    });

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: http.ServerResponse, id: string) =>
    send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such object: '${id}'` } });

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', base);
      const raw = await readBody(req);
      const body = (req.headers['content-type'] ?? '').includes('json')
        ? raw
          ? JSON.parse(raw)
          : {}
        : (qs.parse(raw, { depth: 10 }) as Record<string, unknown>);
      const query = qs.parse(url.search.slice(1)) as Record<string, unknown>;
      const path = url.pathname;
      const m = (re: RegExp) => re.exec(path);
      let r: RegExpExecArray | null;
      const failing = failures.get(`${req.method} ${path}`);
      if (failing && failing.times > 0) {
        failing.times--;
        return send(res, failing.status, {
          error: { type: 'invalid_request_error', code: 'test_failure', message: `Test failure of ${req.method} ${path}` },
        });
      }

      // The hosted pages (a browser, no API key).
      if ((r = m(/^\/pay\/([\w]+)$/))) {
        const session = objects.get(r[1]!);
        if (!session) return notFound(res, r[1]!);
        // ?hold=webhooks (end-to-end tests, whose server is shared): this payment's events wait
        // for POST /_test/release, so the return page is seen before any webhook.
        const hold = url.searchParams.get('hold') === 'webhooks';
        if (req.method === 'POST') {
          const to = await paySession(session.id, hold);
          res.writeHead(303, { location: to });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(`<!doctype html><html lang="${session.locale ?? 'en'}"><head><title>Test checkout</title></head><body>
<h1>Test checkout</h1><p data-testid="locale">${session.locale}</p><p data-testid="mode">${session.mode}</p>
<form method="post" action="/pay/${session.id}${hold ? '?hold=webhooks' : ''}"><button type="submit">Pay</button></form>
<a href="${String(session.cancel_url).replace(/"/g, '&quot;')}">Cancel</a></body></html>`);
      }
      if ((r = m(/^\/portal\/([\w]+)$/))) {
        const portal = objects.get(r[1]!);
        if (!portal) return notFound(res, r[1]!);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(`<!doctype html><html lang="en"><head><title>Test billing portal</title></head><body><h1>Billing portal</h1>
<p data-testid="portal-customer">${portal.customer}</p><a href="${portal.return_url}">Return</a></body></html>`);
      }
      // Test controls.
      if (path.startsWith('/_test/')) {
        if (path === '/_test/config' && req.method === 'POST') {
          if ('webhookUrl' in body) webhookUrl = (body.webhookUrl as string) || null;
          if ('autoDeliver' in body) autoDeliver = Boolean(body.autoDeliver);
          return send(res, 200, { webhookUrl, autoDeliver });
        }
        if (path === '/_test/events') return send(res, 200, events);
        if (path === '/_test/release' && req.method === 'POST') {
          const released = held.get(String(body.session)) ?? [];
          held.delete(String(body.session));
          const statuses = [];
          for (const event of released) statuses.push((await deliver(event)).status);
          return send(res, 200, { delivered: statuses });
        }
        return notFound(res, path);
      }

      // The API: Bearer secret key.
      if (req.headers.authorization !== `Bearer ${secretKey}`) {
        return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      }
      const key = req.method !== 'GET' ? (req.headers['idempotency-key'] as string | undefined) : undefined;
      const keyed = `${path}:${key}`;
      if (key && idempotent.has(keyed)) {
        const first = idempotent.get(keyed)!;
        if (first.params !== raw) {
          return send(res, 400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
            },
          });
        }
        return send(res, 200, first.answer);
      }
      if (key && inFlight.has(keyed)) {
        return send(res, 409, {
          error: {
            type: 'idempotency_error',
            code: 'idempotency_key_in_use',
            message: 'There is currently another in-progress request using this Stripe-Idempotency-Key.',
          },
        });
      }
      if (key) {
        inFlight.add(keyed);
        res.on('close', () => inFlight.delete(keyed));
        // A short window in which a racing request with the same key meets the 409 above.
        await new Promise((r) => setTimeout(r, 25));
      }
      const remember = (o: Obj) => (key ? idempotent.set(keyed, { params: raw, answer: structuredClone(o) }) : null, o);
      const expandList = ((body.expand ?? query.expand ?? []) as string[]).map(String);

      if (path === '/v1/customers' && req.method === 'POST') {
        return send(
          res,
          200,
          remember(save({ id: newId('cus'), object: 'customer', email: body.email, name: body.name, metadata: body.metadata ?? {} })),
        );
      }
      if ((r = m(/^\/v1\/customers\/([\w]+)$/)) && req.method === 'GET') {
        const c = objects.get(r[1]!);
        return c ? send(res, 200, c) : notFound(res, r[1]!);
      }
      if (path === '/v1/checkout/sessions' && req.method === 'POST') {
        const items = (body.line_items as { price: string; quantity: string }[] | undefined) ?? [];
        const price = items[0]?.price;
        if (!price || !priceAmounts[price]) {
          return send(res, 400, {
            error: { type: 'invalid_request_error', param: 'line_items[0][price]', message: `No such price: '${price}'` },
          });
        }
        if ((body.mode === 'subscription') !== priceAmounts[price]!.recurring) {
          return send(res, 400, { error: { type: 'invalid_request_error', message: 'Price type does not match the mode' } });
        }
        const id = newId('cs');
        const session = save({
          id,
          object: 'checkout.session',
          mode: body.mode,
          customer: body.customer ?? null,
          client_reference_id: body.client_reference_id ?? null,
          metadata: body.metadata ?? {},
          subscription_data: body.subscription_data,
          locale: body.locale ?? null,
          line_items: items,
          amount_total: priceAmounts[price]!.amount,
          currency: 'usd',
          success_url: body.success_url,
          cancel_url: body.cancel_url,
          status: 'open',
          payment_status: 'unpaid',
          subscription: null,
          invoice: null,
          payment_intent: null,
          url: `${base}/pay/${id}`,
          created: now(),
        });
        return send(res, 200, remember(session));
      }
      if ((r = m(/^\/v1\/checkout\/sessions\/([\w]+)$/)) && req.method === 'GET') {
        const s = objects.get(r[1]!);
        if (!s || s.object !== 'checkout.session') return notFound(res, r[1]!);
        const { subscription_data: _omit, ...visible } = expand(s, expandList);
        return send(res, 200, visible);
      }
      if ((r = m(/^\/v1\/checkout\/sessions\/([\w]+)\/expire$/)) && req.method === 'POST') {
        const s = objects.get(r[1]!);
        if (!s || s.object !== 'checkout.session') return notFound(res, r[1]!);
        if (s.status !== 'open') {
          return send(res, 400, { error: { type: 'invalid_request_error', message: `Only open sessions can be expired (${s.status}).` } });
        }
        Object.assign(s, { status: 'expired', url: null });
        const { subscription_data: _omit, ...visible } = s;
        return send(res, 200, remember(visible as Obj));
      }
      if ((r = m(/^\/v1\/subscriptions\/([\w]+)$/))) {
        const sub = objects.get(r[1]!);
        if (!sub || sub.object !== 'subscription') return notFound(res, r[1]!);
        if (req.method === 'GET') return send(res, 200, sub);
        if (req.method === 'DELETE') {
          if (sub.status === 'canceled') {
            return send(res, 400, { error: { type: 'invalid_request_error', message: 'This subscription has already been canceled.' } });
          }
          return send(res, 200, remember(await endSubscription(sub.id)));
        }
        if (req.method === 'POST') {
          if ('cancel_at_period_end' in body) {
            const cancel = body.cancel_at_period_end === 'true' || body.cancel_at_period_end === true;
            Object.assign(sub, { cancel_at_period_end: cancel, canceled_at: cancel ? now() : null });
          }
          await emit('customer.subscription.updated', sub);
          return send(res, 200, sub);
        }
      }
      if ((r = m(/^\/v1\/invoices\/([\w]+)$/)) && req.method === 'GET') {
        const inv = objects.get(r[1]!);
        return inv ? send(res, 200, invoiceView(inv, expandList.includes('payments'))) : notFound(res, r[1]!);
      }
      if (path === '/v1/invoices' && req.method === 'GET') {
        const data = [...objects.values()].filter(
          (o) =>
            o.object === 'invoice' &&
            (!query.subscription ||
              (o.parent as { subscription_details?: { subscription?: string } }).subscription_details?.subscription ===
                query.subscription) &&
            (!query.customer || o.customer === query.customer) &&
            (!query.status || o.status === query.status),
        );
        const views = data.reverse().map((inv) => invoiceView(inv, expandList.includes('data.payments')));
        return send(res, 200, { object: 'list', url: '/v1/invoices', has_more: false, data: views });
      }
      if (path === '/v1/refunds' && req.method === 'POST') {
        try {
          const amount = body.amount === undefined ? undefined : Number(body.amount);
          const made = await refund(String(body.payment_intent ?? ''), body.charge ? String(body.charge) : undefined, amount);
          Object.assign(made, { reason: body.reason ?? null, metadata: body.metadata ?? {} });
          return send(res, 200, remember(made));
        } catch (err) {
          const code = (err as { code?: string }).code;
          return send(res, 400, {
            error: { type: 'invalid_request_error', code: code ?? 'resource_missing', message: (err as Error).message },
          });
        }
      }
      if (path === '/v1/billing_portal/sessions' && req.method === 'POST') {
        if (!objects.has(String(body.customer))) return notFound(res, String(body.customer));
        const id = newId('bps');
        return send(
          res,
          200,
          save({
            id,
            object: 'billing_portal.session',
            customer: body.customer,
            return_url: body.return_url,
            locale: body.locale ?? null,
            url: `${base}/portal/${id}`,
          }),
        );
      }
      return send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
    } catch (err) {
      send(res, 500, { error: { type: 'api_error', message: (err as Error).message } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    get url() {
      return base;
    },
    secretKey,
    webhookSecret,
    prices,
    setWebhookUrl: (u) => void (webhookUrl = u),
    setAutoDeliver: (on) => void (autoDeliver = on),
    events,
    eventsOf: (type) => events.filter((e) => e.type === type),
    deliver,
    sign,
    pay: paySession,
    renew,
    endSubscription,
    refund: (pi, amount) => refund(pi, undefined, amount),
    setRefundShape: (shape) => void (refundShape = shape),
    failRequests: (route, times, status = 400) => void failures.set(route, { times, status }),
    subscribe,
    objects,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The app's environment for this server. */
export function stripeEnv(s: TestStripe): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: s.secretKey,
    STRIPE_WEBHOOK_SECRET: s.webhookSecret,
    STRIPE_API_BASE: s.url,
    STRIPE_PRICE_PRO: s.prices.pro,
    STRIPE_PRICE_TOPUP_100: s.prices.topup100,
    STRIPE_PRICE_TOPUP_360: s.prices.topup360,
    STRIPE_PRICE_TOPUP_1170: s.prices.topup1170,
  };
}
