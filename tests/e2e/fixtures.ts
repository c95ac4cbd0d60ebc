import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type BrowserContext, type Locator, type Page, type TestInfo } from '@playwright/test';
import { connect, type Sql } from '../../db/client';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { createSession } from '../../app/services/sessions.server';
import type { ReceivedEmail } from '../support/smtp-server';

export { expect };
export type { ReceivedEmail };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Catalogue = { [key: string]: string | Catalogue };
function catalogue(language: 'en' | 'zh-HK', ns: 'common' | 'auth' | 'email' | 'workspace'): Catalogue {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'app/locales', language, `${ns}.json`), 'utf8')) as Catalogue;
}

/** A translated text from the app's catalogues, e.g. text('zh-HK', 'common', 'plan.free'). */
export function text(language: 'en' | 'zh-HK', ns: 'common' | 'auth' | 'email' | 'workspace', key: string): string {
  let node: string | Catalogue | undefined = catalogue(language, ns);
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  if (typeof node !== 'string') throw new Error(`No text ${language}/${ns}:${key} in the catalogues`);
  return node;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: the end-to-end tests must run through tests/playwright.config.ts (its global setup starts the app).`,
    );
  return value;
}

export const appUrl = () => required('E2E_BASE_URL');
const mailboxUrl = () => required('E2E_MAILBOX_URL');

/** A fresh address per call, so tests never share an account or a mailbox. */
export function uniqueEmail(label = 'user'): string {
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 24) || 'user';
  return `${slug}-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}@example.com`;
}

/** Every message the SMTP test server received for this address, oldest first. */
export async function mailFor(to: string): Promise<ReceivedEmail[]> {
  const res = await fetch(`${mailboxUrl()}/messages?to=${encodeURIComponent(to.toLowerCase())}`);
  if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
  return (await res.json()) as ReceivedEmail[];
}

/**
 * Waits until the SMTP server has received a message for `to` (the `count`-th one, 1-based, so a
 * test can wait for a second e-mail to the same address), and returns it.
 */
export async function waitForEmail(to: string, { count = 1, timeout = 20_000 } = {}): Promise<ReceivedEmail> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const messages = await mailFor(to);
    if (messages.length >= count) return messages[count - 1]!;
    if (Date.now() > deadline) {
      throw new Error(`No e-mail #${count} for ${to} within ${timeout / 1000} s (received ${messages.length}).`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The set-password / reset-password link of a message, from its plain-text part. */
export function extractLink(email: ReceivedEmail): string {
  const match = /https?:\/\/\S+\/reset-password\?\S+/.exec(email.text);
  if (!match) throw new Error(`No reset-password link in the e-mail "${email.subject}":\n${email.text}`);
  return match[0];
}

/** The href of the reset-password link in the HTML part (entities decoded). */
export function extractHtmlLink(email: ReceivedEmail): string | null {
  const match = /href="(https?:\/\/[^"]*\/reset-password\?[^"]*)"/.exec(email.html);
  return match ? match[1]!.replaceAll('&amp;', '&') : null;
}

/** The part of a link to open in the browser: the app's own origin, the link's path and query. */
export function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

export const password = () => `pw-${crypto.randomBytes(6).toString('hex')}`;

/** axe's tags for WCAG 2.0, 2.1 and 2.2 at levels A and AA (2.2 adds target sizes). */
export const WCAG22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Axe on the current page: WCAG 2.x A/AA rules (by default those of 2.0 and 2.1) and axe's best
 * practices. Returns the violations; tests assert that no serious or critical one is present and
 * attach the rest to the report.
 */
export async function axeViolations(page: Page, tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']) {
  // Only violations are read: axe skips collecting the passes and the nodes it could not decide.
  // Legacy mode runs axe.run() in the page itself; the default runs it in parts and joins them in a
  // blank page it opens (and loads axe into again) each time, which only matters for cross-origin
  // frames, and the app has no frames.
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags([...tags, 'best-practice'])
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations;
}

/**
 * A connection to the run's database (with the app's own driver settings) for the rows a test
 * arranges or checks, closed when `fn` is done.
 */
export async function withDb<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = connect(required('E2E_DATABASE_URL'), 1, 'postforge-e2e');
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

export type Account = { id: string; name: string; email: string };
export type AccountOptions = { plan?: 'free' | 'pro'; role?: 'user' | 'admin'; language?: 'en' | 'zh-HK' };

/**
 * An account made in the database as registration leaves it (the sign-up credits of the ledger),
 * for tests about something else than signing up or in. It has no password: a test that signs in
 * through the pages makes its account with createAccount.
 */
export async function makeAccount(label: string, { plan = 'free', role = 'user', language = 'en' }: AccountOptions = {}): Promise<Account> {
  const email = uniqueEmail(label);
  const name = `Test ${label}`;
  const id = await withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name, language) VALUES (${email}, ${name}, ${language}) RETURNING id`;
    await grantSignupCredits(user!.id, sql);
    // After the grant, as an upgrade would: the Free grant stays in the history.
    if (plan !== 'free' || role !== 'user')
      await sql`UPDATE users SET subscription_status = ${plan}, role = ${role} WHERE id = ${user!.id}`;
    return user!.id;
  });
  return { id, name, email };
}

/** Signs the browser context in as the account: a session row and the app's signed session cookie. */
export async function signIn(context: BrowserContext, account: Pick<Account, 'id'>): Promise<void> {
  const { setCookie } = await withDb((sql) => createSession(account.id, sql));
  const [pair] = setCookie.split(';');
  const eq = pair!.indexOf('=');
  await context.addCookies([{ name: pair!.slice(0, eq), value: pair!.slice(eq + 1), url: appUrl(), httpOnly: true, sameSite: 'Lax' }]);
}

/** A new account (makeAccount) signed in in the page's browser context. */
export async function signedInAccount(page: Page, label: string, options?: AccountOptions): Promise<Account> {
  const account = await makeAccount(label, options);
  await signIn(page.context(), account);
  return account;
}

/**
 * A screenshot into the test's output folder, for a look by eye. Nothing asserts on it and each one
 * costs the browser a full paint and a PNG, so it is taken only when E2E_SCREENSHOTS=1.
 */
export async function screenshotForEye(target: Page | Locator, testInfo: TestInfo, name: string, fullPage = true): Promise<void> {
  if (process.env.E2E_SCREENSHOTS !== '1') return;
  const path = testInfo.outputPath(`${name}.png`);
  await ('goto' in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path }));
}

type Fixtures = {
  jsEnabled: boolean;
  /**
   * A new account, signed in in the test's browser context without the sign-up pages or an e-mail
   * (those have tests of their own): `const account = await signedIn('label', { plan: 'pro' })`.
   */
  signedIn: (label: string, options?: AccountOptions) => Promise<Account>;
};

export const test = base.extend<Fixtures>({
  // Global setup picks the app's port at run time; the config's static baseURL cannot know it.
  baseURL: async ({}, use) => {
    await use(appUrl());
  },
  jsEnabled: async ({ javaScriptEnabled }, use) => {
    await use(javaScriptEnabled !== false);
  },
  signedIn: async ({ page, jsEnabled, timezoneId }, use) => {
    await use(async (label, options) => {
      const account = await signedInAccount(page, label, options);
      // A browser with scripts has been through the sign-in page, whose script told the server its
      // zone (the `tz` cookie); tests of a first page without it clear the cookie.
      if (jsEnabled) {
        const zone = timezoneId ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
        await page.context().addCookies([{ name: 'tz', value: encodeURIComponent(zone), url: appUrl(), sameSite: 'Lax' }]);
      }
      return account;
    });
  },
});

// ---------------------------------------------------------------------------------------------
// Steps shared by several flows, through the pages as a user would take them (they work with and
// without JavaScript: every form is a real form post).

/**
 * Start generation as a user does: without JavaScript, Start answers with the run's figures first
 * and Confirm starts it; with it, Start starts (the figures were shown as the topics were typed).
 */
export async function clickStart(page: Page, jsEnabled: boolean): Promise<void> {
  await page.getByRole('button', { name: 'Start generation' }).click();
  if (jsEnabled) return;
  await expect(page.getByTestId('confirm-start')).toBeVisible();
  await page.getByRole('button', { name: 'Confirm and start' }).click();
}

/** /auth?tab=register: full name + e-mail, submit; ends on the login tab with the success toast. */
export async function register(page: Page, name: string, email: string): Promise<void> {
  await page.goto('/auth?tab=register');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('Registration successful')).toBeVisible();
}

/**
 * Opens a set-password / reset link and sets `newPassword`; the link proved the address, so this
 * ends signed in on /app with the welcome toast.
 */
export async function setPasswordThroughLink(page: Page, link: string, newPassword: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel('New password').fill(newPassword);
  await page.getByLabel('Confirm password').fill(newPassword);
  await page.getByRole('button', { name: /^(Set password|Reset password)$/ }).click();
  await expect(page).toHaveURL(/\/app$/);
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText(/^(Welcome to Postforge|Password changed)$/)).toBeVisible();
}

/** /auth login tab: e-mail + password, submit. Starts signed out (/auth sends a signed-in visitor to /app). */
export async function logIn(page: Page, email: string, secret: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto('/auth');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(secret);
  await page.getByRole('button', { name: 'Login' }).click();
}

/** A registered account with a password, made through the pages and the real set-password e-mail. */
export async function createAccount(page: Page, label: string): Promise<{ name: string; email: string; password: string }> {
  const email = uniqueEmail(label);
  const name = `Test ${label}`;
  const secret = password();
  await register(page, name, email);
  const mail = await waitForEmail(email);
  await setPasswordThroughLink(page, extractLink(mail), secret);
  return { name, email, password: secret };
}
