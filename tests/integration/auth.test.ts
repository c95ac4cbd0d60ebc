import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { deliverEmail, type EmailMessage } from '../../app/services/mail.server';
import { resetPassword } from '../../app/services/auth.server';
import { LIMITS, maxFor } from '../../app/services/rate-limit.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { handlePasswordResetRequest } from '../../jobs/handlers/password-reset';

// Accounts end to end over real HTTP: the pages (plain form posts, as without JavaScript) and the
// JSON API, against the run's real Postgres and pg-boss.

let app: TestApp;
const previousTrustProxy = process.env.TRUST_PROXY;
beforeAll(async () => {
  // Each client below gets its own X-Forwarded-For address, so per-address limits don't collide.
  process.env.TRUST_PROXY = 'loopback';
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  if (previousTrustProxy === undefined) delete process.env.TRUST_PROXY;
  else process.env.TRUST_PROXY = previousTrustProxy;
});

let ipCounter = 0;
const uniqueIp = () => `198.51.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;
const uniqueEmail = (label: string) => `${label}-${crypto.randomBytes(5).toString('hex')}@example.com`;
const PASSWORD = 'correct horse battery';

function client(headers: Record<string, string> = {}) {
  return new TestClient(app.url, { 'x-forwarded-for': uniqueIp(), ...headers });
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

/** The page's HTML without its scripts (the catalogue travels inside one, with every text). */
async function pageText(res: Response): Promise<string> {
  return (await res.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
}

/** The toast carried by the flash cookie (signed: value.signature, the value base64 JSON). */
function toastOf(c: TestClient): { type: string; title: string; description?: string } | null {
  const raw = c.cookies.get('toast');
  if (!raw) return null;
  const signed = decodeURIComponent(raw);
  const value = signed.slice(0, signed.lastIndexOf('.'));
  return JSON.parse(decodeURIComponent(escape(Buffer.from(value, 'base64').toString('binary'))));
}

/** Every queued send-email job for an address, newest first. */
async function emailJobs(to: string): Promise<EmailMessage[]> {
  const rows = await sql<{ data: EmailMessage }[]>`
    SELECT data FROM pgboss.job WHERE name = 'send-email' AND data->>'to' = ${to} ORDER BY created_on DESC, id DESC`;
  return rows.map((r) => r.data);
}

/** Runs the queued password-reset-request jobs as the worker would (the request only enqueues them). */
async function drainResetRequests() {
  const rows = await sql<{ id: string; data: unknown }[]>`
    UPDATE pgboss.job SET state = 'completed', completed_on = now()
    WHERE name = 'password-reset-request' AND state = 'created' RETURNING id, data`;
  await handlePasswordResetRequest(rows.map((r) => ({ id: r.id, name: 'password-reset-request', data: r.data })) as never);
}

async function latestLink(to: string, template?: EmailMessage['template']) {
  await drainResetRequests();
  const jobs = (await emailJobs(to)).filter((j) => !template || j.template === template);
  expect(jobs.length).toBeGreaterThan(0);
  const url = new URL(jobs[0]!.params.link!);
  return { url, token: url.searchParams.get('token')!, email: url.searchParams.get('email')!, job: jobs[0]! };
}

async function userRow(email: string) {
  const [row] = await sql<{ id: string; email: string; name: string; language: string; passwordHash: string | null }[]>`
    SELECT id, email, name, language, password_hash AS "passwordHash" FROM users WHERE lower(email) = lower(${email})`;
  return row;
}

const sessionCount = async (userId: string) => Number((await sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`)[0]!.n);

/** Registers through the JSON API and sets the password from the queued e-mail's link. */
async function createAccount(label: string, password = PASSWORD) {
  const c = client();
  const email = uniqueEmail(label);
  const res = await c.postJson('/api/register', { name: `Test ${label}`, email });
  expect(res.status).toBe(201);
  const { token } = await latestLink(email, 'set-password');
  const set = await c.postJson('/api/reset-password', { password, confirmPassword: password, token, email });
  expect(set.status).toBe(200);
  return { email, name: `Test ${label}`, password, id: (await userRow(email))!.id };
}

async function loginJson(email: string, password = PASSWORD) {
  const c = client();
  const res = await c.postJson('/api/login', { email, password });
  return { c, res };
}

describe('register → e-mail → set password → login → logout (pages, no JavaScript)', () => {
  it('works end to end with plain form posts', async () => {
    const c = client();
    const email = uniqueEmail('pages');

    const page = await c.get('/auth?tab=register');
    expect(page.status).toBe(200);
    const html = await pageText(page);
    expect(html).toContain('Full name');
    expect(html).toContain('href="/auth?tab=login"');
    expect(html).toContain('name="website"'); // the honeypot

    const reg = await c.postForm('/auth?tab=register', { intent: 'register', name: '  Ada Lovelace ', email: `  ${email}  ` });
    expect(reg.status).toBe(302);
    expect(reg.headers.get('location')).toBe('/auth?tab=login');
    expect(toastOf(c)).toMatchObject({
      type: 'success',
      title: 'Registration successful',
      description: 'Please check your email for instructions to set your password.',
    });
    expect(c.cookies.has('__session')).toBe(false); // registration does not sign in

    const user = await userRow(email);
    expect(user).toMatchObject({ email, name: 'Ada Lovelace', language: 'en', passwordHash: null });

    // The set-password e-mail was queued in the same transaction; its link carries token and e-mail.
    const { url, token, job } = await latestLink(email, 'set-password');
    expect(`${url.origin}${url.pathname}`).toBe('http://localhost:3999/reset-password');
    expect(url.searchParams.get('email')).toBe(email);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const [stored] = await sql<{ tokenHash: string; purpose: string; ttl: number }[]>`
      SELECT token_hash AS "tokenHash", purpose, extract(epoch FROM expires_at - created_at)::int AS ttl
      FROM password_tokens WHERE user_id = ${user!.id}`;
    expect(stored!.purpose).toBe('set-password');
    expect(stored!.ttl).toBe(24 * 60 * 60);
    expect(stored!.tokenHash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    expect(stored!.tokenHash).not.toContain(token);

    // Running the job's work puts the message, link included, in the outbox.
    expect(await deliverEmail(job)).toBe('outbox');
    const [mail] = await sql<{ subject: string; textBody: string }[]>`
      SELECT subject, text_body AS "textBody" FROM email_outbox WHERE message_key = ${job.messageKey}`;
    expect(mail!.subject).toBe('Set your Postforge password');
    expect(mail!.textBody).toContain(url.toString());

    // Set the password through the page: a new account's link speaks of setting, not resetting.
    const resetPage = await c.get(`${url.pathname}${url.search}`);
    expect(resetPage.status).toBe(200);
    const resetHtml = await pageText(resetPage);
    expect(resetHtml).toContain('<h1 class="text-2xl font-bold tracking-tight text-slate-900">Set your password</h1>');
    expect(resetHtml).toContain('<title>Set your password · Postforge</title>');
    expect(resetHtml).not.toContain('Reset password');
    expect(resetHtml).toContain('New password');
    expect(resetHtml).toContain('Confirm password');
    const set = await c.postForm(`${url.pathname}${url.search}`, { token, email, password: PASSWORD, confirmPassword: PASSWORD });
    // The link proved the address, so setting the password signs in and lands on /app.
    expect(set.status).toBe(302);
    expect(set.headers.get('location')).toBe('/app');
    expect(c.cookies.has('__session')).toBe(true);
    expect(toastOf(c)).toMatchObject({ type: 'success', title: 'Welcome to Postforge' });
    const landed = await c.get('/app');
    expect(landed.status).toBe(200);
    expect(await pageText(landed)).toMatch(/role="status"[\s\S]*Welcome to Postforge/);
    expect((await userRow(email))!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await sql`SELECT 1 FROM password_tokens WHERE user_id = ${user!.id}`).toHaveLength(0);
    expect(await sessionCount(user!.id)).toBe(1);

    // The used link shows no form any more.
    const used = await pageText(await new TestClient(app.url).get(`${url.pathname}${url.search}`));
    expect(used).toContain('Link no longer valid');
    expect(used).not.toContain('Confirm password');
    expect(used).not.toContain('name="password"');

    // Log in: e-mail compared case-insensitively.
    const login = await c.postForm('/auth?tab=login', { intent: 'login', email: email.toUpperCase(), password: PASSWORD });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/app');
    expect(c.cookies.has('__session')).toBe(true);
    expect(toastOf(c)).toMatchObject({ type: 'success', title: 'Login successful', description: 'Welcome, Ada Lovelace' });
    expect(await sessionCount(user!.id)).toBe(1);

    const me = await c.get('/api/user');
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({
      name: 'Ada Lovelace',
      email,
      creditsRemaining: 5,
      topUpCreditsRemaining: 0,
      subscriptionStatus: 'free',
      // No browser has told its zone yet (a client without cookies or scripts).
      timeZone: null,
    });

    // Signed in: /auth sends to /app.
    const again = await c.get('/auth');
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/app');

    // GET /logout changes nothing.
    const getLogout = await c.get('/logout');
    expect(getLogout.status).toBe(302);
    expect(await sessionCount(user!.id)).toBe(1);

    const out = await c.postForm('/logout', {});
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('/');
    expect(toastOf(c)).toMatchObject({ title: 'Logged out', description: "You've been successfully logged out." });
    expect(c.cookies.has('__session')).toBe(false);
    expect(await sessionCount(user!.id)).toBe(0);
    expect((await c.get('/api/user')).status).toBe(401);
  });

  it('re-renders the login form with "Login failed" for a wrong password, an unknown e-mail, or no password yet', async () => {
    const account = await createAccount('wrongpw');
    const pending = uniqueEmail('nopassword');
    expect((await client().postJson('/api/register', { name: 'No Password', email: pending })).status).toBe(201);
    for (const [email, password] of [
      [account.email, 'not the password'],
      [uniqueEmail('nobody'), PASSWORD],
      [pending, PASSWORD],
    ] as const) {
      const c = client();
      const res = await c.postForm('/auth', { intent: 'login', email, password });
      expect(res.status).toBe(401);
      const html = await pageText(res);
      expect(html).toContain('Login failed');
      expect(html).toContain('Invalid email or password');
      expect(html).not.toContain(password); // the password is not echoed back
      expect(c.cookies.has('__session')).toBe(false);
    }
  });

  it('tells the registrant an address is taken (any case) with "Registration failed"', async () => {
    const account = await createAccount('taken');
    const res = await client().postForm('/auth?tab=register', {
      intent: 'register',
      name: 'Someone Else',
      email: account.email.toUpperCase(),
    });
    expect(res.status).toBe(409);
    const html = await pageText(res);
    expect(html).toContain('Registration failed');
    expect(html).toContain('Email may already be registered');
    expect(Number((await sql`SELECT count(*)::int AS n FROM users WHERE lower(email) = lower(${account.email})`)[0]!.n)).toBe(1);
  });
});

describe('the JSON API', () => {
  it('register → set password → login → /api/user → logout', async () => {
    const c = client();
    const email = uniqueEmail('json');
    const reg = await c.postJson('/api/register', { name: 'Grace Hopper', email });
    expect(reg.status).toBe(201);
    expect(c.cookies.has('__session')).toBe(false);
    expect((await c.get('/api/user')).status).toBe(401);

    const dup = await c.postJson('/api/register', { name: 'Grace Again', email: email.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ error: 'Email may already be registered' });

    const { token } = await latestLink(email, 'set-password');
    const set = await c.postJson('/api/reset-password', { password: PASSWORD, confirmPassword: PASSWORD, token, email });
    expect(set.status).toBe(200);

    const login = await c.postJson('/api/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({
      name: 'Grace Hopper',
      email,
      creditsRemaining: 5,
      topUpCreditsRemaining: 0,
      subscriptionStatus: 'free',
      // No browser has told its zone yet (a client without cookies or scripts).
      timeZone: null,
    });
    const me = await c.get('/api/user');
    expect(me.status).toBe(200);
    expect((await me.json()).name).toBe('Grace Hopper');

    const userId = (await userRow(email))!.id;
    expect(await sessionCount(userId)).toBe(1);
    const out = await c.postJson('/api/logout', {});
    expect(out.status).toBe(200);
    expect(await sessionCount(userId)).toBe(0);
    const after = await c.get('/api/user');
    expect(after.status).toBe(401);
    expect(typeof (await after.json()).error).toBe('string');
  });

  it('login failures are 401 with the same message for a wrong password and an unknown e-mail', async () => {
    const account = await createAccount('json-wrong');
    const wrong = await client().postJson('/api/login', { email: account.email, password: 'nope-nope' });
    const unknown = await client().postJson('/api/login', { email: uniqueEmail('ghost'), password: 'nope-nope' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'Invalid email or password' });
    expect(await unknown.json()).toEqual({ error: 'Invalid email or password' });
  });

  it('answers malformed JSON, a wrong content type and non-object bodies with 400 and an error field', async () => {
    const c = client();
    for (const path of ['/api/login', '/api/register', '/api/forgot-password', '/api/reset-password']) {
      const bad = await c.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email": ' });
      expect(bad.status, path).toBe(400);
      expect(typeof (await bad.json()).error).toBe('string');
      const form = await c.postForm(path, { email: 'a@example.com' });
      expect(form.status, path).toBe(400);
      expect(typeof (await form.json()).error).toBe('string');
      for (const body of ['[]', 'null', '"x"', '42']) {
        const res = await c.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status, `${path} ${body}`).toBe(400);
      }
    }
  });

  it('never answers 500 to odd input', async () => {
    const c = client();
    const bodies: Record<string, unknown>[] = [
      { email: 123, password: ['x'] },
      { name: { a: 1 }, email: null },
      { name: 'Nul\u0000Byte', email: uniqueEmail('nul') },
      { name: 'x'.repeat(10_000), email: `${'a'.repeat(300)}@example.com` },
      { email: 'a@example.com', password: 'p'.repeat(100_000) },
      { password: 'secret1', confirmPassword: 'secret1', token: 'x'.repeat(500), email: 'a@example.com' },
      { password: 'secret1', confirmPassword: 'secret1', token: '\u0000', email: 'a@example.com' },
    ];
    for (const path of ['/api/login', '/api/register', '/api/forgot-password', '/api/reset-password']) {
      for (const body of bodies) {
        const res = await c.postJson(path, body);
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBeLessThan(500);
        if (res.status >= 400) expect(typeof (await res.json()).error).toBe('string');
      }
    }
    // A form body that is not a form on the pages.
    const page = await c.request('/auth', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: 'garbage',
    });
    expect(page.status).toBeLessThan(500);
  });

  it('refuses GET on the POST endpoints with 405 and other methods on /api/user', async () => {
    const c = client();
    for (const path of ['/api/login', '/api/register', '/api/logout', '/api/forgot-password', '/api/reset-password']) {
      const res = await c.get(path);
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(typeof (await res.json()).error).toBe('string');
    }
    expect((await c.postJson('/api/user', {})).status).toBe(405);
  });

  it('reports validation problems as {error, fields} in the reader language', async () => {
    const en = await client().postJson('/api/register', { name: 'A', email: 'not-an-email' });
    expect(en.status).toBe(400);
    const enBody = await en.json();
    expect(enBody.fields).toEqual({ name: ['Name must be at least 2 characters'], email: ['Please enter a valid email address'] });
    expect(enBody.error).toBe('Name must be at least 2 characters');

    const zh = await client({ 'accept-language': 'zh-HK,zh;q=0.9' }).postJson('/api/login', { email: 'x', password: '123' });
    expect(zh.status).toBe(400);
    expect((await zh.json()).fields).toEqual({ email: ['請輸入有效的電郵地址'], password: ['密碼最少需要 6 個字元'] });

    const mismatch = await client().postJson('/api/reset-password', {
      password: 'secret1',
      confirmPassword: 'secret2',
      token: 'abc',
      email: 'a@example.com',
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: "Passwords don't match", fields: { confirmPassword: ["Passwords don't match"] } });

    const missing = await client().postJson('/api/reset-password', { password: 'secret1', confirmPassword: 'secret1' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'Invalid reset parameters. Please try again.' });
  });
});

describe('password tokens', () => {
  it('work once', async () => {
    const c = client();
    const email = uniqueEmail('once');
    await c.postJson('/api/register', { name: 'Once Only', email });
    const { token } = await latestLink(email, 'set-password');
    expect((await c.postJson('/api/reset-password', { password: PASSWORD, confirmPassword: PASSWORD, token, email })).status).toBe(200);

    const reuse = await c.postJson('/api/reset-password', { password: 'another-pass', confirmPassword: 'another-pass', token, email });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toEqual({ error: 'This link is invalid or has already been used. Please request a new password reset.' });
    // The page says so too, and does not show the success state.
    const page = await c.postForm(`/reset-password?token=${token}&email=${encodeURIComponent(email)}`, {
      token,
      email,
      password: 'another-pass',
      confirmPassword: 'another-pass',
    });
    expect(page.status).toBe(400);
    const html = await pageText(page);
    expect(html).toContain('This link is invalid or has already been used.');
    expect(html).not.toContain('Password Reset Successful');
    // The first password still works, the second was never set.
    expect((await loginJson(email, PASSWORD)).res.status).toBe(200);
    expect((await loginJson(email, 'another-pass')).res.status).toBe(401);
  });

  it('expire (set-password after 24 h, reset after 1 h)', async () => {
    const c = client();
    const email = uniqueEmail('expired');
    await c.postJson('/api/register', { name: 'Late Comer', email });
    const { token } = await latestLink(email, 'set-password');
    const userId = (await userRow(email))!.id;
    await sql`UPDATE password_tokens SET expires_at = now() - interval '1 minute' WHERE user_id = ${userId}`;

    const page = await c.postForm(`/reset-password?token=${token}&email=${encodeURIComponent(email)}`, {
      token,
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    expect(page.status).toBe(400);
    const html = await pageText(page);
    expect(html).toContain('This link has expired. Please request a new password reset.');
    expect(html).not.toContain('Password Reset Successful');
    expect((await userRow(email))!.passwordHash).toBeNull();

    // A reset token lives one hour.
    expect((await c.postJson('/api/forgot-password', { email })).status).toBe(200);
    await drainResetRequests();
    const [row] = await sql<{ purpose: string; ttl: number }[]>`
      SELECT purpose, extract(epoch FROM expires_at - created_at)::int AS ttl FROM password_tokens WHERE user_id = ${userId}`;
    expect(row).toEqual({ purpose: 'reset-password', ttl: 60 * 60 });
  });

  it('a newer token replaces the older one', async () => {
    const c = client();
    const email = uniqueEmail('newer');
    await c.postJson('/api/register', { name: 'Twice Asked', email });
    const first = await latestLink(email, 'set-password');
    expect((await c.postJson('/api/forgot-password', { email })).status).toBe(200);
    const second = await latestLink(email, 'reset-password');
    expect(second.token).not.toBe(first.token);
    expect(second.job.messageKey).not.toBe(first.job.messageKey);
    expect(second.job.messageKey).toMatch(/^reset:/);

    const old = await c.postJson('/api/reset-password', { password: PASSWORD, confirmPassword: PASSWORD, token: first.token, email });
    expect(old.status).toBe(400);
    const fresh = await c.postJson('/api/reset-password', { password: PASSWORD, confirmPassword: PASSWORD, token: second.token, email });
    expect(fresh.status).toBe(200);
  });

  it('is consumed once even when two requests race with it', async () => {
    const email = uniqueEmail('race');
    await client().postJson('/api/register', { name: 'Race Condition', email });
    const { token } = await latestLink(email, 'set-password');
    const tries = await Promise.all(
      ['first-pass', 'second-pass', 'third-pass'].map((password) =>
        client().postJson('/api/reset-password', { password, confirmPassword: password, token, email }),
      ),
    );
    expect(tries.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('a token only works with its own e-mail address', async () => {
    const c = client();
    const a = uniqueEmail('owner-a');
    const b = uniqueEmail('owner-b');
    await c.postJson('/api/register', { name: 'Owner A', email: a });
    await client().postJson('/api/register', { name: 'Owner B', email: b });
    const { token } = await latestLink(a, 'set-password');
    const res = await c.postJson('/api/reset-password', { password: PASSWORD, confirmPassword: PASSWORD, token, email: b });
    expect(res.status).toBe(400);
    expect((await userRow(b))!.passwordHash).toBeNull();
  });

  it('setting a password ends every other session and signs the setting browser in, in one transaction', async () => {
    const account = await createAccount('sessions');
    const one = await loginJson(account.email);
    const two = await loginJson(account.email);
    await sql`DELETE FROM sessions WHERE user_id = ${account.id} AND id NOT IN (SELECT id FROM sessions WHERE user_id = ${account.id} ORDER BY created_at DESC LIMIT 2)`;
    expect(await sessionCount(account.id)).toBe(2);

    await client().postJson('/api/forgot-password', { email: account.email });
    const { token } = await latestLink(account.email, 'reset-password');
    const res = await one.c.postJson('/api/reset-password', {
      password: 'brand-new-pass',
      confirmPassword: 'brand-new-pass',
      token,
      email: account.email,
    });
    expect(res.status).toBe(200);
    expect((await two.c.get('/api/user')).status).toBe(401);
    expect((await one.c.get('/api/user')).status).toBe(200);
    expect(await sessionCount(account.id)).toBe(1);

    // From a signed-out browser: every other session ends and that browser is the one signed in.
    await client().postJson('/api/forgot-password', { email: account.email });
    const next = await latestLink(account.email, 'reset-password');
    const fresh = client();
    await fresh.postJson('/api/reset-password', {
      password: 'newest-pass',
      confirmPassword: 'newest-pass',
      token: next.token,
      email: account.email,
    });
    expect(await sessionCount(account.id)).toBe(1);
    expect((await one.c.get('/api/user')).status).toBe(401);
    expect((await fresh.get('/api/user')).status).toBe(200);
  });

  it('a failure after the sessions ended rolls them back with the password (sessions join the transaction)', async () => {
    const account = await createAccount('rollback');
    const signedIn = await loginJson(account.email);
    await client().postJson('/api/forgot-password', { email: account.email });
    const { token } = await latestLink(account.email, 'reset-password');
    const before = await sessionCount(account.id);
    // The transaction fails after the sessions were deleted: nothing of it may remain.
    await expect(
      sql.begin(async (tx) => {
        const outcome = await resetPassword({ email: account.email, token, password: 'never-committed' }, tx);
        expect(outcome.ok).toBe(true);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await sessionCount(account.id)).toBe(before);
    expect((await signedIn.c.get('/api/user')).status).toBe(200);
    expect((await loginJson(account.email, 'never-committed')).res.status).toBe(401);
  });
});

describe('/reset-password and /forgot-password pages', () => {
  it('shows the invalid-link state when token or email is missing', async () => {
    const c = client();
    for (const path of [
      '/reset-password',
      '/reset-password?token=abc',
      '/reset-password?email=a%40example.com',
      '/reset-password?token=&email=',
    ]) {
      const res = await c.get(path);
      expect(res.status, path).toBe(200);
      const html = await pageText(res);
      expect(html).toContain('Reset Link Invalid');
      expect(html).toContain('Invalid or missing reset token. Please request a new password reset.');
      expect(html).toContain('href="/forgot-password"');
      expect(html).not.toContain('Confirm password');
    }
    const zh = await client({ 'accept-language': 'zh-HK' }).get('/reset-password');
    expect(await pageText(zh)).toContain('重設連結無效');
  });

  it('shows "Passwords don\'t match" on confirmPassword and keeps the form', async () => {
    const res = await client().postForm('/reset-password?token=abc&email=a%40example.com', {
      token: 'abc',
      email: 'a@example.com',
      password: 'secret1',
      confirmPassword: 'secret2',
    });
    expect(res.status).toBe(400);
    const html = await pageText(res);
    expect(html).toContain(escapeHtml("Passwords don't match"));
    expect(html).toMatch(
      /id="reset-password-confirmPassword"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="reset-password-confirmPassword"/,
    );
  });

  it('answers the same for an unknown address as for a known one, and queues mail only for the known', async () => {
    const account = await createAccount('forgot');
    const before = (await emailJobs(account.email)).length;

    const known = await client().postForm('/forgot-password', { email: account.email });
    const unknownEmail = uniqueEmail('unknown');
    const unknown = await client().postForm('/forgot-password', { email: unknownEmail });
    expect(known.status).toBe(302);
    expect(unknown.status).toBe(302);
    expect(unknown.headers.get('location')).toBe(known.headers.get('location'));
    // No timing difference: before answering, both did the same work, one queued request each and no
    // lookup, token or e-mail yet; that happens in the job.
    const requests = await sql<{ data: { email: string } }[]>`
      SELECT data FROM pgboss.job WHERE name = 'password-reset-request' AND state = 'created'
        AND data->>'email' IN (${account.email}, ${unknownEmail})`;
    expect(requests.map((r) => r.data.email).sort()).toEqual([account.email, unknownEmail].sort());
    expect((await emailJobs(account.email)).length).toBe(before);
    await drainResetRequests();
    expect((await emailJobs(account.email)).length).toBe(before + 1);
    expect(await emailJobs(unknownEmail)).toHaveLength(0);

    const sent = await client().get(known.headers.get('location')!);
    const html = await pageText(sent);
    expect(html).toContain('Check your email');
    expect(html).toMatch(/spam folder/);
    expect(html).toContain('href="/auth?tab=login"');

    const knownJson = await client().postJson('/api/forgot-password', { email: account.email });
    const unknownJson = await client().postJson('/api/forgot-password', { email: uniqueEmail('unknown') });
    expect(knownJson.status).toBe(200);
    expect(unknownJson.status).toBe(200);
    expect(await knownJson.json()).toEqual(await unknownJson.json());
  });

  it('queues the reset e-mail in the language of the request', async () => {
    const account = await createAccount('zh-reset');
    await client({ 'accept-language': 'zh-HK' }).postJson('/api/forgot-password', { email: account.email });
    const { job } = await latestLink(account.email, 'reset-password');
    expect(job.language).toBe('zh-HK');
  });
});

describe('/auth page', () => {
  it('renders the tabs, the marketing panel and the back link; the tab comes from the URL', async () => {
    const c = client();
    const login = await pageText(await c.get('/auth'));
    expect(login).toContain('href="/"');
    expect(login).toContain('Back to homepage');
    expect(login).toContain('href="/forgot-password"');
    expect(login).toMatch(/aria-current="page"[^>]*>Login</);
    expect(login).toContain('name="password"');
    expect(login).not.toContain('Full name');
    const register = await pageText(await c.get('/auth?tab=register'));
    expect(register).toMatch(/aria-current="page"[^>]*>Register</);
    expect(register).toContain('Full name');
    expect(register).not.toContain('name="password"');
    // Marketing panel: a hero and three features.
    expect(register.match(/<h3 /g)?.length).toBe(3);
  });

  it('shows validation messages in English and in Traditional Chinese', async () => {
    const en = await client().postForm('/auth?tab=register', { intent: 'register', name: 'A', email: 'nope' });
    expect(en.status).toBe(400);
    const enHtml = await pageText(en);
    expect(enHtml).toContain('Name must be at least 2 characters');
    expect(enHtml).toContain('Please enter a valid email address');
    expect(enHtml).toMatch(/aria-invalid="true"/);
    expect(enHtml).toMatch(/aria-describedby="register-name-error"/);

    const zh = await client({ 'accept-language': 'zh-HK' }).postForm('/auth', { intent: 'login', email: 'nope', password: '123' });
    expect(zh.status).toBe(400);
    const zhHtml = await pageText(zh);
    expect(zhHtml).toContain('請輸入有效的電郵地址');
    expect(zhHtml).toContain('密碼最少需要 6 個字元');
    expect(zhHtml).toContain('<html lang="zh-HK"');
  });

  it('registers in the language of the request', async () => {
    const email = uniqueEmail('zh-user');
    const res = await client({ cookie: 'language=zh-HK' }).postForm('/auth?tab=register', { intent: 'register', name: '陳大文', email });
    expect(res.status).toBe(302);
    expect((await userRow(email))!.language).toBe('zh-HK');
    expect((await latestLink(email, 'set-password')).job.language).toBe('zh-HK');
  });

  it('rejects a filled honeypot quietly', async () => {
    const email = uniqueEmail('bot');
    const c = client();
    const res = await c.postForm('/auth?tab=register', { intent: 'register', name: 'Bot Bot', email, website: 'http://spam.example' });
    expect(res.status).toBe(302);
    expect(toastOf(c)?.title).toBe('Registration successful');
    expect(await userRow(email)).toBeUndefined();
    expect(await emailJobs(email)).toHaveLength(0);

    const api = await client().postJson('/api/register', { name: 'Bot Bot', email, website: 'x' });
    expect(api.status).toBe(201);
    expect(await userRow(email)).toBeUndefined();

    // Even the right password does not sign a bot in.
    const account = await createAccount('honeypot-login');
    const login = client();
    const attempt = await login.postForm('/auth', { intent: 'login', email: account.email, password: PASSWORD, website: 'x' });
    expect(attempt.status).toBe(401);
    expect(login.cookies.has('__session')).toBe(false);

    const forgot = await client().postForm('/forgot-password', { email: account.email, website: 'x' });
    expect(forgot.status).toBe(302);
    expect((await emailJobs(account.email)).filter((j) => j.template === 'reset-password')).toHaveLength(0);
  });

  it('refuses cross-site posts with 403', async () => {
    const account = await createAccount('csrf');
    const c = client();
    const form = await c.postForm(
      '/auth',
      { intent: 'login', email: account.email, password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(form.status).toBe(403);
    const api = await c.postJson('/api/login', { email: account.email, password: PASSWORD }, { origin: 'https://evil.example' });
    expect(api.status).toBe(403);
    const logout = await c.postForm('/logout', {}, { origin: 'https://evil.example' });
    expect(logout.status).toBe(403);
    expect(c.cookies.has('__session')).toBe(false);
  });

  it('sends a signed-in user from /auth to /app, and honours a same-site redirectTo only', async () => {
    const account = await createAccount('redirect');
    const c = client();
    const ok = await c.postForm('/auth', {
      intent: 'login',
      email: account.email,
      password: PASSWORD,
      redirectTo: '/subscription?success=true',
    });
    expect(ok.headers.get('location')).toBe('/subscription?success=true');
    const res = await c.get('/auth?tab=register');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/app');

    const evil = await client().postForm('/auth', {
      intent: 'login',
      email: account.email,
      password: PASSWORD,
      redirectTo: '//evil.example/x',
    });
    expect(evil.headers.get('location')).toBe('/app');
  });
});

describe('abuse limits', () => {
  it('five wrong passwords from anywhere do not lock the owner out', async () => {
    const account = await createAccount('no-lockout');
    for (let i = 0; i < maxFor('loginPair') + 2; i++) {
      // Each from another client: no (address, client) pair reaches its limit.
      expect((await client().postJson('/api/login', { email: account.email, password: `wrong-${i}-pass` })).status).toBe(401);
    }
    expect((await loginJson(account.email)).res.status).toBe(200);
  });

  it('limits failed logins per (address, client): 429 with the translated message, even for the right password', async () => {
    const account = await createAccount('limit-pair');
    const ip = uniqueIp();
    const from = (headers: Record<string, string> = {}) => new TestClient(app.url, { 'x-forwarded-for': ip, ...headers });
    for (let i = 0; i < maxFor('loginPair'); i++) {
      expect((await from().postJson('/api/login', { email: account.email, password: `wrong-${i}-pass` })).status).toBe(401);
    }
    const blocked = await from().postJson('/api/login', { email: account.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    const minutes = LIMITS.loginPair.windowSeconds / 60;
    expect(await blocked.json()).toEqual({ error: `Too many attempts. Try again in ${minutes} minutes.` });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const zhPage = await from({ 'accept-language': 'zh-HK' }).postForm('/auth', {
      intent: 'login',
      email: account.email,
      password: PASSWORD,
    });
    expect(zhPage.status).toBe(429);
    expect(await pageText(zhPage)).toContain(`嘗試次數過多，請於 ${minutes} 分鐘後再試。`);

    // The owner from another client is not locked out.
    expect((await loginJson(account.email)).res.status).toBe(200);
    // The window over, that client may try again.
    await sql`UPDATE rate_limits SET window_started_at = now() - interval '1 day' WHERE key LIKE 'loginPair:%'`;
    expect((await from().postJson('/api/login', { email: account.email, password: PASSWORD })).status).toBe(200);
  });

  it('holds under parallel guesses from one client: never more failures checked than the limit', async () => {
    const account = await createAccount('limit-parallel');
    const max = maxFor('loginPair');
    const ip = uniqueIp();
    const results = await Promise.all(
      Array.from({ length: max + 4 }, (_, i) =>
        new TestClient(app.url, { 'x-forwarded-for': ip }).postJson('/api/login', { email: account.email, password: `guess-${i}-x` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(max);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
  });

  it('brakes an address under a spread-out attack: one failure per client, the right password still passes', async () => {
    const account = await createAccount('limit-brake');
    // Spread over many clients: the per-pair limit never trips, the address brake does.
    const wrong = Array.from({ length: maxFor('loginEmail') + 1 }, (_, i) => i);
    for (let i = 0; i < wrong.length; i += 10) {
      const batch = await Promise.all(
        wrong.slice(i, i + 10).map((n) => client().postJson('/api/login', { email: account.email, password: `spread-${n}-x` })),
      );
      for (const res of batch) expect(res.status).toBe(401);
    }
    const ip = uniqueIp();
    const from = () => new TestClient(app.url, { 'x-forwarded-for': ip });
    expect((await from().postJson('/api/login', { email: account.email, password: 'braked-1-x' })).status).toBe(401);
    expect((await from().postJson('/api/login', { email: account.email, password: 'braked-2-x' })).status).toBe(429);
    // A new client with the right password gets in.
    expect((await loginJson(account.email)).res.status).toBe(200);
  });

  it('counts IPv6 clients by their /64', async () => {
    const account = await createAccount('limit-v6');
    const prefix = `2001:db8:${(++ipCounter).toString(16)}:7`;
    for (let i = 0; i < maxFor('loginPair'); i++) {
      const c = new TestClient(app.url, { 'x-forwarded-for': `${prefix}::${(i + 1).toString(16)}` });
      expect((await c.postJson('/api/login', { email: account.email, password: `v6-${i}-wrong` })).status).toBe(401);
    }
    // Another address of the same /64 is the same client.
    const same = new TestClient(app.url, { 'x-forwarded-for': `${prefix}:ffff:ffff:ffff:ffff` });
    expect((await same.postJson('/api/login', { email: account.email, password: PASSWORD })).status).toBe(429);
    const other = new TestClient(app.url, { 'x-forwarded-for': `2001:db8:${(++ipCounter).toString(16)}:8::1` });
    expect((await other.postJson('/api/login', { email: account.email, password: PASSWORD })).status).toBe(200);
  });

  it('does not count successful logins against the client address', async () => {
    const account = await createAccount('limit-success');
    const ip = uniqueIp();
    for (let i = 0; i < maxFor('loginIp') + 2; i++) {
      const res = await new TestClient(app.url, { 'x-forwarded-for': ip }).postJson('/api/login', {
        email: account.email,
        password: PASSWORD,
      });
      expect(res.status).toBe(200);
    }
  });

  it('limits failed logins per client address across e-mail addresses', async () => {
    const account = await createAccount('limit-ip');
    const c = client();
    const max = maxFor('loginIp');
    for (let i = 0; i < max; i++) {
      const res = await c.postJson('/api/login', { email: uniqueEmail('spray'), password: 'wrong-password' });
      expect(res.status).toBe(401);
    }
    const blocked = await c.postForm('/auth', { intent: 'login', email: account.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(await pageText(blocked)).toContain(`Too many attempts. Try again in ${LIMITS.loginIp.windowSeconds / 60} minutes.`);
    expect(c.cookies.has('__session')).toBe(false);
    // Another address is not affected.
    expect((await loginJson(account.email)).res.status).toBe(200);
  });

  it('limits registration per client address and per e-mail address', async () => {
    const c = client();
    for (let i = 0; i < maxFor('registerIp'); i++) {
      expect((await c.postJson('/api/register', { name: 'Mass Signup', email: uniqueEmail('mass') })).status).toBe(201);
    }
    const blocked = await c.postForm('/auth?tab=register', { intent: 'register', name: 'Mass Signup', email: uniqueEmail('mass') });
    expect(blocked.status).toBe(429);
    expect(await pageText(blocked)).toContain('Too many attempts. Try again in');

    const email = uniqueEmail('same');
    for (let i = 0; i < maxFor('registerEmail'); i++) await client().postJson('/api/register', { name: 'Same Person', email });
    const again = await client().postJson('/api/register', { name: 'Same Person', email });
    expect(again.status).toBe(429);
  });

  it('limits password reset requests per e-mail address and per client address', async () => {
    const account = await createAccount('limit-forgot');
    for (let i = 0; i < maxFor('forgotEmail'); i++) {
      expect((await client().postJson('/api/forgot-password', { email: account.email })).status).toBe(200);
    }
    const blocked = await client().postForm('/forgot-password', { email: account.email });
    expect(blocked.status).toBe(429);
    expect(await pageText(blocked)).toContain('Too many attempts. Try again in');
    // Unknown addresses count the same (no enumeration through the limit either).
    const c = client();
    for (let i = 0; i < maxFor('forgotIp'); i++) {
      expect((await c.postJson('/api/forgot-password', { email: uniqueEmail('fp') })).status).toBe(200);
    }
    expect((await c.postJson('/api/forgot-password', { email: uniqueEmail('fp') })).status).toBe(429);
  });
});
