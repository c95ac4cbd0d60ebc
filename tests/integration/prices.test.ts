/**
 * One source for every price: the landing page and the subscription page, rendered
 * by the compiled app through the real server in English and Traditional Chinese, show exactly the
 * catalogue's amounts (app/catalogue.ts), in order: every credit amount and every price on the page
 * is read off the text and compared with the list the catalogue gives. The locales hold words only: a
 * literal amount in any catalogue string ("99 credits", "$15", "每月 5 點") fails the last test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEXT_MODEL, findModel, modelCreditRange, plans, topUpPacks } from '../../app/catalogue';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';

const LOCALES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../app/locales');
const languages = ['en', 'zh-HK'] as const;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

type Amount = `${number} credits` | `$${number}`;
const credits = (n: number): Amount => `${n} credits`;
const usd = (cents: number): Amount => `$${cents / 100}`;

/** The visible text of an HTML fragment (scripts dropped, tags as spaces), with the meta description first. */
function textOf(html: string): string {
  const description = /<meta name="description" content="([^"]*)"/.exec(html)?.[1] ?? '';
  const body = html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ');
  return `${description} ${body}`
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

/** Every amount the text shows, in order: prices ("$15", "US$15") and credits ("45 credits", "1 to 2 credits", "每月 45 點"). */
function amountsOf(text: string): Amount[] {
  const num = (s: string) => Number(s.replaceAll(',', ''));
  const found: { at: number; amounts: Amount[] }[] = [];
  for (const m of text.matchAll(/(?:US)?\$\s?(\d[\d,]*(?:\.\d+)?)/g)) found.push({ at: m.index, amounts: [`$${num(m[1]!)}`] });
  for (const m of text.matchAll(/(\d[\d,]*)(?:\s*(?:to|至)\s*(\d[\d,]*))?\s*(?:credits?\b|點(?!數))/gi)) {
    found.push({ at: m.index, amounts: [m[1], m[2]].filter((x): x is string => Boolean(x)).map((x) => credits(num(x))) });
  }
  return found.sort((a, b) => a.at - b.at).flatMap((f) => f.amounts);
}

/** The HTML of `<section aria-labelledby="id">` (these sections hold no nested section). */
function section(html: string, id: string): string {
  const start = html.indexOf(`<section aria-labelledby="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
}

const packAmounts = topUpPacks.flatMap((p) => [credits(p.credits), usd(p.priceCents)]);
const planCards = [
  usd(plans.free.priceCents),
  credits(plans.free.monthlyCredits),
  usd(plans.pro.priceCents),
  credits(plans.pro.monthlyCredits),
];

describe('the pages show the catalogue amounts', () => {
  for (const language of languages) {
    it(`the landing page (${language})`, async () => {
      const res = await new TestClient(app.url, { 'accept-language': language }).get('/');
      expect(res.status).toBe(200);
      const range = modelCreditRange();
      expect(amountsOf(textOf(await res.text()))).toEqual([
        credits(plans.free.monthlyCredits), // meta description
        credits(plans.free.monthlyCredits), // hero note
        usd(plans.free.priceCents),
        credits(plans.free.monthlyCredits),
        credits(findModel(DEFAULT_TEXT_MODEL)!.credits),
        usd(plans.pro.priceCents),
        credits(plans.pro.monthlyCredits),
        credits(range.min),
        credits(range.max),
        ...packAmounts,
        credits(plans.free.monthlyCredits), // call to action
      ]);
    });

    it(`the subscription page of a Free and of a Pro account (${language})`, async () => {
      for (const status of ['free', 'pro'] as const) {
        const user = await makeUser(`prices-${status}`, status);
        const client = await signedInClient(app.url, user.id);
        const res = await client.get('/subscription', { 'accept-language': language });
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(amountsOf(textOf(section(html, 'current-plan'))), `${status}: current plan`).toEqual([
          credits(plans[status].monthlyCredits),
        ]);
        // A new Free account holds its first grant; the Pro card says it is forfeited for Pro's monthly credits.
        const forfeit = status === 'free' ? [credits(plans.free.monthlyCredits), credits(plans.pro.monthlyCredits)] : [];
        expect(amountsOf(textOf(section(html, 'plans'))), `${status}: plan cards`).toEqual([...planCards, ...forfeit]);
        expect(amountsOf(textOf(section(html, 'topups'))), `${status}: top-up packs`).toEqual(packAmounts);
      }
    });
  }

  it('the plans API answers the same amounts', async () => {
    const res = await new TestClient(app.url).get('/api/subscription/plans');
    const body = (await res.json()) as {
      plans: { id: 'free' | 'pro'; price: number; features: string[] }[];
      topUpPlans: { id: string; price: number; name: string; limits: { credits: number } }[];
    };
    for (const p of body.plans) {
      expect(p.price * 100).toBe(plans[p.id].priceCents);
      expect(p.features).toContain(`${plans[p.id].monthlyCredits} credits per month`);
    }
    expect(body.topUpPlans.map((p) => [p.id, p.price * 100, p.limits.credits, p.name])).toEqual(
      topUpPacks.map((p) => [p.id, p.priceCents, p.credits, `${p.credits} credits`]),
    );
  });
});

describe('the locales hold words, not amounts', () => {
  it('no catalogue string writes a credit amount or a price of its own', () => {
    const literal: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (typeof node === 'string') {
        if (amountsOf(node).length > 0) literal.push(`${where}: ${node}`);
      } else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) walk(v, `${where}.${k}`);
      }
    };
    for (const language of languages) {
      for (const file of fs.readdirSync(path.join(LOCALES, language))) {
        walk(JSON.parse(fs.readFileSync(path.join(LOCALES, language, file), 'utf8')), `${language}/${file}`);
      }
    }
    expect(literal).toEqual([]);
  });

  it('the check itself sees a literal amount', () => {
    expect(amountsOf('Top-up: 99 credits for $30')).toEqual([credits(99), '$30']);
    expect(amountsOf('每月 5 點，US$15')).toEqual([credits(5), '$15']);
  });
});
