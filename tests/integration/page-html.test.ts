/**
 * The signed-in pages, read as HTML the way a browser without JavaScript and a screen reader get
 * them, in English and in Traditional Chinese: the title, the language, the landmarks and the one
 * h1, every form with its method, action, routing intent and fields, the links a reader needs, no
 * control that only works with a script, and no English left in a Chinese page.
 *
 * Only what a page is for is pinned here, so wording, layout and styling can change without
 * touching this file; a form that loses its action, intent or a field fails it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Document, Element } from 'domhandler';
import { HtmlValidate } from 'html-validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { signedInClient } from '../support/input-tools';

type Language = 'en' | 'zh-HK';

let app: TestApp;
let client: TestClient;
const ids: Record<string, string> = {};
const USER = { name: 'Ada Lovelace', email: 'page-html@example.com' };
// What the seeded user wrote: it may be English in any page.
const USER_TEXT = [USER.name, USER.email, 'AL', 'topic', 'Post', 'Part', 'Body of post'];

beforeAll(async () => {
  app = await startTestApp();
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${USER.email}, ${USER.name}, 'pro') RETURNING id`;
  await grantSignupCredits(user!.id);
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total, created_at)
    VALUES (${user!.id}, 'text', 'openai/gpt-4o-mini', 3, '2026-03-02T09:00:00Z') RETURNING id`;
  const results: string[] = [];
  for (const [i, status] of (['completed', 'completed', 'failed'] as const).entries()) {
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at)
      VALUES (${user!.id}, ${run!.id}, ${i + 1}, 'text', ${`topic ${i + 1}`}, ${`Post ${i + 1}`},
        ${status === 'completed' ? `<h2>Part ${i + 1}</h2><p>Body of post ${i + 1}</p>` : null}, ${status},
        'openai/gpt-4o-mini', 1, ${`2026-03-02T09:0${i + 1}:00Z`})
      RETURNING id`;
    results.push(r!.id);
  }
  ids.run = run!.id;
  ids.result = results[0]!;
  client = await signedInClient(app.url, user!.id);
});
afterAll(() => app.close());

// ---------------------------------------------------------------------------------------------
// The catalogues, so a page's words are checked against what translators wrote.

type Catalogue = { [key: string]: string | Catalogue };
const catalogues = new Map<string, Catalogue>();
function catalogue(language: Language, ns: string): Catalogue {
  const file = path.join(process.cwd(), 'app/locales', language, `${ns}.json`);
  if (!catalogues.has(file)) catalogues.set(file, JSON.parse(fs.readFileSync(file, 'utf8')) as Catalogue);
  return catalogues.get(file)!;
}

/** A text of the catalogue, e.g. t('zh-HK', 'common:meta.appTitle', { name }). */
function t(language: Language, key: string, values: Record<string, string> = {}): string {
  const [ns, dotted] = key.split(':') as [string, string];
  let node: string | Catalogue | undefined = catalogue(language, ns);
  for (const part of dotted.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  if (typeof node !== 'string') throw new Error(`No text ${language}/${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Every English sentence of the catalogues that its Chinese counterpart does not share (names such as "WordPress" are the same in both). */
function englishOnlyTexts(): Set<string> {
  const texts = new Set<string>();
  for (const file of fs.readdirSync(path.join(process.cwd(), 'app/locales/en'))) {
    const ns = file.replace(/\.json$/, '');
    const walk = (en: Catalogue, zh: Catalogue | undefined) => {
      for (const [key, value] of Object.entries(en)) {
        const other = zh?.[key];
        if (typeof value === 'object') walk(value, typeof other === 'object' ? other : undefined);
        else if (value !== other && !value.includes('{{') && /[a-z]{2,} [a-z]{2,}/i.test(value)) texts.add(value.trim());
      }
    };
    walk(catalogue('en', ns), catalogue('zh-HK', ns));
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------
// Reading the HTML.

const FIELDS = new Set(['input', 'select', 'textarea', 'button']);
const text = (node: Element) => DomUtils.textContent(node).replace(/\s+/g, ' ').trim();
const all = (doc: Document | Element, test: (e: Element) => boolean) => DomUtils.findAll(test, doc.children);
const ancestor = (node: Element, name: string) => {
  for (let p = node.parent; p; p = p.parent) if ((p as Element).name === name) return p as Element;
  return undefined;
};

type Form = { method: string; action: string; id?: string; hidden: Record<string, string>; fields: Set<string>; formActions: Set<string> };

/** Each form with the fields it submits: its own, and those outside it that name it with form="…". */
function forms(doc: Document): Form[] {
  return all(doc, (e) => e.name === 'form').map((form) => {
    const owned = [
      ...all(form, (e) => FIELDS.has(e.name) && !e.attribs.form),
      ...(form.attribs.id ? all(doc, (e) => FIELDS.has(e.name) && e.attribs.form === form.attribs.id) : []),
    ];
    const hidden: Record<string, string> = {};
    const fields = new Set<string>();
    for (const e of owned) {
      if (!e.attribs.name) continue;
      if (e.name === 'input' && e.attribs.type === 'hidden') hidden[e.attribs.name] = e.attribs.value ?? '';
      else fields.add(e.attribs.name);
    }
    const formActions = new Set(owned.map((e) => e.attribs.formaction).filter((a): a is string => Boolean(a)));
    return {
      method: (form.attribs.method ?? 'get').toLowerCase(),
      action: form.attribs.action ?? '',
      id: form.attribs.id,
      hidden,
      fields,
      formActions,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// What each page is for.

type ExpectedForm = {
  method: 'get' | 'post';
  action: string;
  id?: string;
  /** Hidden values that route the post (intent, type, returnTo). */
  hidden?: Record<string, string>;
  fields?: string[];
  /** Submit buttons that post elsewhere (formaction), e.g. the titles helper. */
  formActions?: string[];
  /** How many such forms the page has (one per result, say); at least one when unset. */
  count?: number;
};

type PageSpec = {
  name: string;
  url: string;
  title: string;
  h1: string;
  /** aria-labels (catalogue keys) of the page's own navigation landmarks besides the header's. */
  navs?: string[];
  forms: ExpectedForm[];
  links: string[];
};

const GENERATION_TEXT_FIELDS = [
  'model',
  'prompts',
  'language',
  'toneOfVoice',
  'pointOfView',
  'articleType',
  'readingLevel',
  'contentLength',
  'writingStyle',
  'embedImage',
  'aspectRatio',
  'stylePreset',
  'guidanceScale',
  'includeIntro',
  'includeOutro',
  'includeHeadings',
  'includeBulletPoints',
  'includeQA',
  'includeKeyTakeaways',
  'replicateApiKey',
];
const GENERATION_IMAGE_FIELDS = ['model', 'prompts', 'aspectRatio', 'stylePreset', 'numOutputs', 'guidanceScale', 'replicateApiKey'];
const SETTINGS_FIELDS = [
  'openRouterApiKey',
  'replicateApiKey',
  'defaultTextModel',
  'defaultImageModel',
  'aspectRatio',
  'stylePreset',
  'guidanceScale',
  'numOutputs',
  'darkMode',
  'autoSave',
];
const WORKSPACE_LINKS = ['/app?tab=results', '/app?tab=wordpress'];

function pages(language: Language): PageSpec[] {
  const welcome = t(language, 'common:workspace.welcome', { name: USER.name });
  const appTitle = t(language, 'common:meta.appTitle');
  const wordpressTitle = t(language, 'common:meta.wordpressTitle');
  const results = (returnTo: string): ExpectedForm[] => [
    { method: 'get', action: '/app', hidden: { tab: 'results' }, fields: ['search'] },
    { method: 'post', action: '/app/results', hidden: { intent: 'clear', returnTo } },
    // The failed result has its retry and remove forms.
    { method: 'post', action: '/app/results', hidden: { intent: 'retry', id: '*', returnTo }, count: 1 },
    { method: 'post', action: '/app/results', hidden: { intent: 'remove', id: '*', returnTo }, count: 1 },
  ];
  const resultLinks = ['/api/results/download-all', `/api/results/${ids.result}/download`, `/app/runs/${ids.run}#post-${ids.result}`];
  return [
    {
      name: 'app',
      url: '/app',
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label', 'workspace:form.type.label'],
      forms: [
        {
          method: 'post',
          action: '/app',
          id: 'generation',
          hidden: { intent: 'generate', type: 'text' },
          fields: GENERATION_TEXT_FIELDS,
          // Without JavaScript the titles helper is a form post of its own.
          formActions: ['/app/titles'],
        },
      ],
      links: [...WORKSPACE_LINKS, '/app/templates?type=text', '/app?type=image', '/app?input=csv', '/app?settings=1'],
    },
    {
      name: 'app-image',
      url: '/app?type=image',
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label', 'workspace:form.type.label'],
      forms: [
        {
          method: 'post',
          action: '/app?type=image',
          id: 'generation',
          hidden: { intent: 'generate', type: 'image' },
          fields: GENERATION_IMAGE_FIELDS,
        },
      ],
      links: [...WORKSPACE_LINKS, '/app/templates?type=image', '/app?type=image&input=csv'],
    },
    {
      name: 'results',
      url: '/app?tab=results',
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label', 'workspace:results.filter.label'],
      forms: results('/app?tab=results'),
      links: [...WORKSPACE_LINKS, ...resultLinks, `/app?tab=results&edit=${ids.result}#edit-${ids.result}`],
    },
    {
      // Without JavaScript a result's editor is a page of the list of its own.
      name: 'results-edit',
      url: `/app?tab=results&edit=${ids.result}`,
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label', 'workspace:results.filter.label'],
      forms: [
        ...results('/app?tab=results'),
        {
          method: 'post',
          action: '/app/results',
          hidden: { intent: 'save', id: ids.result!, returnTo: '/app?tab=results' },
          fields: ['content', 'metaDescription', 'slug', 'focusKeyword'],
        },
      ],
      links: [...WORKSPACE_LINKS, ...resultLinks],
    },
    {
      name: 'integration',
      url: '/app?tab=wordpress',
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label'],
      forms: [],
      links: [...WORKSPACE_LINKS, '/wordpress', '/wordpress?add=1'],
    },
    {
      name: 'templates',
      url: '/app/templates',
      title: appTitle,
      h1: t(language, 'inputs:templates.page'),
      navs: ['inputs:templates.listLabel'],
      forms: [],
      links: ['/app/templates?type=text', '/app/templates?type=image', '/app/templates?type=text&save=1'],
    },
    {
      name: 'run',
      url: `/app/runs/${ids.run}`,
      title: t(language, 'workspace:progress.title'),
      h1: t(language, 'workspace:progress.title'),
      forms: [
        { method: 'post', action: `/app/runs/${ids.run}`, id: 'run-links', hidden: { intent: 'link-run' }, fields: ['enabled', 'count'] },
        // One per completed post.
        { method: 'post', action: `/app/runs/${ids.run}`, hidden: { intent: 'relink-post', resultId: '*' }, count: 2 },
      ],
      links: [`/app?tab=results&run=${ids.run}`],
    },
    {
      name: 'publish',
      url: `/app/publish/${ids.result}`,
      title: wordpressTitle,
      h1: t(language, 'wordpress:publish.title'),
      forms: [],
      // No site yet: the page sends the user to add one.
      links: ['/wordpress', '/wordpress?add=1'],
    },
    {
      name: 'publish-bulk',
      url: '/app/publish-bulk',
      title: wordpressTitle,
      h1: t(language, 'wordpress:bulk.title'),
      forms: [],
      links: ['/app?tab=results'],
    },
    {
      name: 'settings',
      url: '/app?settings=1',
      title: appTitle,
      h1: welcome,
      navs: ['common:workspace.tabs.label', 'workspace:form.type.label'],
      forms: [
        { method: 'post', action: '/settings', hidden: { redirectTo: '/app' }, fields: SETTINGS_FIELDS },
        { method: 'post', action: '/app', id: 'generation', hidden: { intent: 'generate', type: 'text' }, fields: GENERATION_TEXT_FIELDS },
      ],
      links: ['/settings/api-tokens', '/settings/webhooks', '/api/docs'],
    },
    {
      name: 'subscription',
      url: '/subscription',
      title: t(language, 'common:meta.subscriptionTitle'),
      h1: t(language, 'common:subscription.title'),
      forms: [
        // Pro: cancel (its panel is rendered twice, for wide and narrow screens) and the three top-up packs.
        { method: 'post', action: '/subscription', hidden: { intent: 'cancel' }, count: 2 },
        { method: 'post', action: '/subscription', hidden: { intent: 'checkout' }, count: 3 },
      ],
      links: ['/subscription/history.csv'],
    },
    {
      name: 'wordpress',
      url: '/wordpress',
      title: wordpressTitle,
      h1: t(language, 'common:wordpress.title'),
      forms: [],
      links: ['/wordpress?add=1', '/app/calendar', '/wordpress/postforge-seo.php'],
    },
  ];
}

// ---------------------------------------------------------------------------------------------

// What an HTML checker finds: the standard's rules (ids that are letters, digits, dashes and
// underscores, one main, permitted content) and the accessibility ones (landmarks with unique names,
// labels, references that resolve). Heading order is axe's to check, in the browser.
const validator = new HtmlValidate({
  extends: ['html-validate:standard', 'html-validate:a11y'],
  rules: {
    'valid-id': ['error', { relaxed: false }],
    'unique-landmark': 'error',
    'input-missing-label': 'error',
    'no-missing-references': 'error',
    'form-dup-name': ['error', { shared: ['radio', 'checkbox', 'button', 'reset', 'submit'] }],
    // The run's progress bar is a styled element with role="progressbar" and its values, as ARIA allows.
    'prefer-native-element': ['error', { exclude: ['progressbar'] }],
  },
});

async function expectValidHtml(raw: string, where: string) {
  const report = await validator.validateString(raw);
  const messages = report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message} (${m.selector ?? ''})`));
  expect(messages, `${where}: html-validate`).toEqual([]);
}

async function load(url: string, language: Language, as: TestClient = client, status = 200): Promise<Document> {
  const res = await as.get(url, { 'accept-language': language });
  expect(res.status, `${url} ${language}`).toBe(status);
  const raw = await res.text();
  // A character split by React's stream (the react-dom patch) shows up as NUL bytes.
  expect(raw.includes('\u0000'), `${url} (${language}) has no NUL byte`).toBe(false);
  await expectValidHtml(raw, `${url} (${language})`);
  return parseDocument(raw);
}

/** What every page has: language, title, landmarks, one h1, the header's forms, labelled fields, no script-only control. */
function checkFrame(doc: Document, page: PageSpec, language: Language) {
  const where = `${page.url} (${language})`;
  const html = DomUtils.findOne((e) => e.name === 'html', doc.children)!;
  expect(html.attribs.lang, `${where}: <html lang>`).toBe(language);
  const title = all(doc, (e) => e.name === 'title');
  expect(title.map(text), `${where}: <title>`).toEqual([page.title]);
  const h1 = all(doc, (e) => e.name === 'h1');
  expect(h1.map(text), `${where}: one h1`).toEqual([page.h1]);

  // Landmarks: the header (banner), one main the skip link points at, the footer, the navigations.
  const main = all(doc, (e) => e.name === 'main');
  expect(main, `${where}: one <main>`).toHaveLength(1);
  const skip = all(doc, (e) => e.name === 'a' && (e.attribs.href ?? '').startsWith('#'))[0];
  expect(skip?.attribs.href, `${where}: the first in-page link skips to the main content`).toBe(`#${main[0]!.attribs.id}`);
  expect(all(doc, (e) => e.name === 'header').length, `${where}: <header>`).toBeGreaterThan(0);
  expect(all(doc, (e) => e.name === 'footer').length, `${where}: <footer>`).toBeGreaterThan(0);
  const navs = all(doc, (e) => e.name === 'nav').map((e) => e.attribs['aria-label']);
  expect(navs, `${where}: the header's navigation`).toContain(t(language, 'common:header.nav'));
  for (const key of page.navs ?? []) expect(navs, `${where}: nav ${key}`).toContain(t(language, key));
  expect(
    all(doc, (e) => e.name === 'section' && e.attribs['aria-label'] === t(language, 'common:toast.region')),
    `${where}: the notifications region`,
  ).toHaveLength(1);

  // The header's language switch and sign-out work as plain form posts, back to this page.
  const all_ = forms(doc);
  const switches = all_.filter((f) => f.method === 'post' && f.action === '/language');
  expect(switches.length, `${where}: language switch`).toBeGreaterThan(0);
  for (const f of switches) {
    expect(f.hidden.redirectTo, `${where}: language switch returns to the page`).toBe(page.url);
    expect([...f.fields], `${where}: language switch buttons`).toEqual(['language']);
  }
  const languageButtons = all(doc, (e) => e.name === 'button' && e.attribs.name === 'language').map((e) => e.attribs.value);
  expect(new Set(languageButtons), `${where}: both languages offered`).toEqual(new Set(['en', 'zh-HK']));
  expect(all_.filter((f) => f.method === 'post' && f.action === '/logout').length, `${where}: sign-out form`).toBeGreaterThan(0);

  // Every form submits with a button and posts to this site (the forgery guard is by origin).
  for (const [i, form] of all(doc, (e) => e.name === 'form').entries()) {
    const f = all_[i]!;
    expect(['get', 'post'], `${where}: form ${f.action} method`).toContain(f.method);
    expect(f.action, `${where}: form action is a path of this site`).toMatch(/^\/(?!\/)/);
    const submits = [
      ...all(
        form,
        (e) => (e.name === 'button' && (e.attribs.type ?? 'submit') === 'submit') || (e.name === 'input' && e.attribs.type === 'submit'),
      ),
      ...(form.attribs.id ? all(doc, (e) => e.name === 'button' && e.attribs.form === form.attribs.id) : []),
    ];
    expect(submits.length, `${where}: form ${f.action} has a submit button`).toBeGreaterThan(0);
  }

  // Nothing needs a script: every button belongs to a form and submits it, every link goes somewhere.
  for (const button of all(doc, (e) => e.name === 'button')) {
    const label = `${where}: button "${text(button)}"`;
    expect(button.attribs.form || ancestor(button, 'form'), `${label} belongs to a form`).toBeTruthy();
    expect(button.attribs.type ?? 'submit', `${label} submits`).toBe('submit');
  }
  for (const a of all(doc, (e) => e.name === 'a')) {
    expect(a.attribs.href ?? '', `${where}: link "${text(a)}" has a target`).toMatch(/^(\/|#\w|https?:|mailto:)/);
  }
  for (const e of all(doc, (e) => Object.keys(e.attribs).some((name) => /^on/i.test(name)))) {
    expect.fail(`${where}: <${e.name}> has an inline script handler`);
  }

  // Every field a user fills has a name for assistive technology.
  const labelled = new Set(all(doc, (e) => e.name === 'label' && Boolean(e.attribs.for)).map((e) => e.attribs.for));
  for (const field of all(doc, (e) => ['input', 'select', 'textarea'].includes(e.name) && e.attribs.type !== 'hidden')) {
    const named =
      (field.attribs.id && labelled.has(field.attribs.id)) ||
      field.attribs['aria-label'] ||
      field.attribs['aria-labelledby'] ||
      ancestor(field, 'label');
    expect(named, `${where}: field ${field.attribs.name} has a label`).toBeTruthy();
  }
}

/** The page's own forms: method, action, routing values and fields. */
function checkForms(doc: Document, page: PageSpec, language: Language) {
  const found = forms(doc).filter((f) => f.action !== '/language' && f.action !== '/logout');
  for (const want of page.forms) {
    const hidden = Object.entries(want.hidden ?? {});
    const matching = found.filter(
      (f) =>
        f.method === want.method &&
        f.action === want.action &&
        (want.id === undefined || f.id === want.id) &&
        hidden.every(([name, value]) => (value === '*' ? Boolean(f.hidden[name]) : f.hidden[name] === value)),
    );
    const label = `${page.url} (${language}): form ${want.method} ${want.action} ${JSON.stringify(want.hidden ?? {})}`;
    if (want.count === undefined) expect(matching.length, label).toBeGreaterThan(0);
    else expect(matching.length, label).toBe(want.count);
    for (const f of matching) {
      for (const field of want.fields ?? []) expect([...f.fields], `${label}: field ${field}`).toContain(field);
      for (const action of want.formActions ?? []) expect([...f.formActions], `${label}: formaction`).toContain(action);
    }
  }
  // No form of the page goes unaccounted for (a new one gets a line above).
  for (const f of found) {
    const known = page.forms.some((w) => w.method === f.method && w.action === f.action);
    expect(known, `${page.url} (${language}): unexpected form ${f.method} ${f.action}`).toBe(true);
  }
}

/** The texts a reader sees or hears: text nodes outside scripts, and the spoken attributes. */
function readable(doc: Document): string[] {
  const out: string[] = [];
  const walk = (nodes: Document['children']) => {
    for (const node of nodes) {
      if (node.type === 'text') out.push(node.data);
      if (!DomUtils.isTag(node)) continue;
      const e = node;
      if (e.name === 'script' || e.name === 'style') continue;
      for (const name of ['aria-label', 'title', 'placeholder', 'alt']) if (e.attribs[name]) out.push(e.attribs[name]);
      // Options name models by their own names (output languages are checked on their own).
      if (e.name === 'option') continue;
      walk(e.children);
    }
  };
  walk(doc.children);
  return out.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

// Product and proper names that stay as they are in the Chinese pages.
const NAMES =
  /\b(Postforge( SEO fields)?|WordPress|Pro|English|API|CSV|JSON|HTML|PHP|SFTP|SEO|AI|UTC|Yoast|Rank Math|Meta|OpenRouter|Replicate|Webhooks|slug|wp-content|plugins|postforge-seo|php|US|UK|lt|gt)\b/g;

function checkChinese(doc: Document, url: string, english: Set<string>) {
  for (const chunk of readable(doc)) {
    expect(english.has(chunk), `${url} (zh-HK) shows the English text "${chunk}"`).toBe(false);
    let rest = chunk.replace(NAMES, ' ');
    for (const own of USER_TEXT) rest = rest.replaceAll(own, ' ');
    // Two English words in a row, once names and the user's own words are out, is a sentence left untranslated.
    expect(rest, `${url} (zh-HK): English words in "${chunk}"`).not.toMatch(/[A-Za-z]{2,}\s+[A-Za-z]{2,}/);
  }
}

/** The output-language select names each language in the reader's language, in the catalogue's order. */
function checkOutputLanguages(doc: Document, language: Language) {
  const select = DomUtils.findOne((e) => e.name === 'select' && e.attribs.name === 'language', doc.children)!;
  const options = all(select, (e) => e.name === 'option').map((o) => [o.attribs.value!, text(o)] as const);
  const names = Object.entries(catalogue(language, 'workspace').options as Catalogue).find(([k]) => k === 'language')![1] as Catalogue;
  expect(options.length, `/app (${language}): output languages`).toBeGreaterThan(50);
  expect(options, `/app (${language}): output languages named in the catalogue, in its order`).toEqual(Object.entries(names));
  const selected = all(select, (e) => e.name === 'option' && 'selected' in e.attribs).map(text);
  expect(selected, `/app (${language}): the default output language`).toEqual([language === 'zh-HK' ? '英文（美國）' : 'English (US)']);
}

describe('signed-in pages: structure in both languages', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`every page in ${language}`, async () => {
      const english = language === 'zh-HK' ? englishOnlyTexts() : new Set<string>();
      for (const page of pages(language)) {
        const doc = await load(page.url, language);
        checkFrame(doc, page, language);
        checkForms(doc, page, language);
        const hrefs = new Set(all(doc, (e) => e.name === 'a').map((e) => e.attribs.href));
        for (const href of page.links) expect(hrefs.has(href), `${page.url} (${language}): link to ${href}`).toBe(true);
        if (language === 'zh-HK') checkChinese(doc, page.url, english);
        if (page.name === 'app') checkOutputLanguages(doc, language);
      }
    });
  }
});

describe('every other page: html-validate in both languages', () => {
  // The pages above are checked as they load; these are the signed-out ones (with their meta
  // description) and the rest.
  const publicPages: [string, number?][] = [
    ['/'],
    ['/auth'],
    ['/auth?tab=register'],
    ['/forgot-password'],
    ['/forgot-password?sent=1'],
    ['/reset-password'],
    ['/reset-password?token=abcdefghijklmnopqrstuv&email=someone%40example.com'],
    ['/terms'],
    ['/privacy'],
    ['/contact'],
    ['/no-such-page', 404],
  ];
  const signedInPages = ['/app/calendar', '/settings/api-tokens', '/settings/webhooks', '/admin/ledger'];

  for (const language of ['en', 'zh-HK'] as const) {
    it(`in ${language}`, async () => {
      const anonymous = new TestClient(app.url);
      for (const [url, status] of publicPages) {
        const doc = await load(url, language, anonymous, status);
        if (status) continue;
        // Public pages are indexed: each says what it is in a description of the page's language.
        const description = DomUtils.findAll((e) => e.name === 'meta' && e.attribs.name === 'description', doc.children);
        expect(description.length, `${url} (${language}): one meta description`).toBe(1);
        const content = description[0]!.attribs.content ?? '';
        expect(content.length, `${url} (${language}): meta description "${content}"`).toBeGreaterThan(20);
        if (language === 'zh-HK') expect(content, `${url} (zh-HK): meta description in Chinese`).toMatch(/\p{Script=Han}/u);
        else expect(content, `${url} (en): meta description in English`).not.toMatch(/\p{Script=Han}/u);
      }
      const [admin] = await sql<{ id: string }[]>`
        INSERT INTO users (email, name, subscription_status, role)
        VALUES (${`page-html-admin-${language}@example.com`}, 'Grace Hopper', 'pro', 'admin') RETURNING id`;
      const adminClient = await signedInClient(app.url, admin!.id);
      for (const url of signedInPages) await load(url, language, adminClient);
    });
  }
});
