import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_MAX_BYTES, CSV_MAX_ROWS } from '../../app/catalogue';
import { parseCsvUpload } from '../../app/services/csv-import.server';
import { loadTopicDraft } from '../../app/services/topic-drafts.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient, uploadFile } from '../support/input-tools';

const enc = (s: string) => new TextEncoder().encode(s);
function utf16le(s: string, bom = true): Uint8Array {
  const body = Buffer.from(s, 'utf16le');
  return bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body;
}
function prompts(bytes: Uint8Array) {
  const r = parseCsvUpload(bytes);
  if (!r.ok) throw new Error(`expected ok, got ${r.code}`);
  return r.data;
}

describe('CSV parsing (parseCsvUpload)', () => {
  it('takes the topic_or_keyword column wherever it is, else the first column', () => {
    expect(prompts(enc('id,topic_or_keyword\n1,Garden tips\n2,Travel hacks\n')).prompts).toEqual(['Garden tips', 'Travel hacks']);
    expect(prompts(enc('subject,notes\nGarden tips,x\nTravel hacks,y\n')).prompts).toEqual(['Garden tips', 'Travel hacks']);
  });

  it('reads quoted fields with commas, quotes and newlines (one line each), BOM and CRLF', () => {
    const file = '\uFEFFtopic_or_keyword,other\r\n"Apples, pears and plums",1\r\n"The ""best"" coffee",2\r\n"Two\r\nlines",3\r\n';
    const data = prompts(enc(file));
    expect(data.prompts).toEqual(['Apples, pears and plums', 'The "best" coffee', 'Two lines']);
    expect(data.encoding).toBe('utf-8');
  });

  it('detects semicolon-separated files (European Excel) and tab-separated UTF-16 ("Unicode text")', () => {
    const semi = prompts(enc('topic_or_keyword;note\r\nCafé, croissants;a\r\nZürich travel;b\r\n'));
    expect(semi.delimiter).toBe(';');
    expect(semi.prompts).toEqual(['Café, croissants', 'Zürich travel']);
    const unicode = prompts(utf16le('topic_or_keyword\tnote\r\n香港美食\t1\r\nDim sum, tea\t2\r\n'));
    expect(unicode).toMatchObject({ delimiter: '\t', encoding: 'utf-16le', prompts: ['香港美食', 'Dim sum, tea'] });
    const be = Buffer.from(utf16le('topic\nBig endian topic\n', false)).swap16();
    expect(prompts(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toMatchObject({ encoding: 'utf-16be', prompts: ['Big endian topic'] });
  });

  it('reads Windows-1252 files (not UTF-8) without garbling', () => {
    const bytes = Buffer.from('topic\ncaf\xe9 culture\n', 'latin1');
    expect(prompts(bytes)).toMatchObject({ encoding: 'windows-1252', prompts: ['café culture'] });
  });

  it('drops and counts duplicates (case-insensitive) and empty rows', () => {
    const data = prompts(enc('topic_or_keyword\nSEO basics\n\n  \nseo basics\n,\nSEO  basics\nLink building\n,\n'));
    expect(data.prompts).toEqual(['SEO basics', 'Link building']);
    expect(data.duplicates).toBe(2);
    expect(data.emptyRows).toBe(3);
  });

  it('keeps formula-looking cells as plain text', () => {
    const data = prompts(enc('topic_or_keyword\n"=HYPERLINK(""http://evil.example"",""click"")"\n+cmd|calc\n@SUM(A1)\n-2+3\n'));
    expect(data.prompts).toEqual(['=HYPERLINK("http://evil.example","click")', '+cmd|calc', '@SUM(A1)', '-2+3']);
  });

  it('returns the optional title, keywords and instructions columns with each row', () => {
    const data = prompts(
      enc(
        'topic_or_keyword,title,keywords,instructions\nVegan baking,Bake it green,"vegan, cake",Mention egg substitutes\nBudget travel,,,\n',
      ),
    );
    expect(data.rows).toEqual([
      { topic: 'Vegan baking', title: 'Bake it green', keywords: 'vegan, cake', instructions: 'Mention egg substitutes' },
      { topic: 'Budget travel' },
    ]);
  });

  it('refuses more than 1,000 rows, more than 1 MB, a header-only file, binary data', () => {
    const many = 'topic\n' + Array.from({ length: CSV_MAX_ROWS + 1 }, (_, i) => `Topic ${i}`).join('\n');
    expect(parseCsvUpload(enc(many))).toEqual({ ok: false, code: 'tooManyRows' });
    const exactly = 'topic\n' + Array.from({ length: CSV_MAX_ROWS }, (_, i) => `Topic ${i}`).join('\n') + '\n\n\n';
    expect(prompts(enc(exactly)).prompts).toHaveLength(CSV_MAX_ROWS);
    expect(parseCsvUpload(new Uint8Array(CSV_MAX_BYTES + 1).fill(65))).toEqual({ ok: false, code: 'tooLarge' });
    expect(parseCsvUpload(enc('topic_or_keyword\n'))).toEqual({ ok: false, code: 'noTopics' });
    expect(parseCsvUpload(enc(''))).toEqual({ ok: false, code: 'noTopics' });
    expect(parseCsvUpload(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01, 0x02, 0x00, 0x41]))).toMatchObject({ ok: false });
  });

  it('never throws, whatever the bytes (property test)', () => {
    const csvish = fc
      .array(fc.constantFrom('a', 'b', ',', ';', '\t', '"', '\n', '\r', ' ', '=', 'é', '\uFEFF', '\u0000', '香'), { maxLength: 300 })
      .map((cs) => enc(cs.join('')));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), csvish), (bytes) => {
        const r = parseCsvUpload(bytes);
        if (r.ok) {
          expect(r.data.prompts.length).toBeGreaterThan(0);
          expect(new Set(r.data.prompts.map((p) => p.toLowerCase())).size).toBe(r.data.prompts.length);
          for (const p of r.data.prompts) expect(p).not.toMatch(/[\r\n]/);
        } else expect(['tooLarge', 'tooManyRows', 'invalidFormat', 'noTopics']).toContain(r.code);
      }),
      { numRuns: 400 },
    );
  });

  it('copes with one huge line and an unclosed quote', () => {
    expect(prompts(enc('topic\n' + 'x'.repeat(400) + '\n' + 'y'.repeat(900_000) + '\n')).tooLong).toBe(1);
    expect(parseCsvUpload(enc('topic\n"never closed\nmore'))).toMatchObject({ ok: false });
  });
});

describe('POST /api/upload-csv', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('is 401 signed out and 405 for GET', async () => {
    const res = await uploadFile(new TestClient(app.url), '/api/upload-csv', 'topic\nA\n');
    expect(res.status).toBe(401);
    const user = await makeUser('csv-405');
    expect((await (await signedInClient(app.url, user.id)).get('/api/upload-csv')).status).toBe(405);
  });

  it('answers { prompts, rows } and counts what it dropped', async () => {
    const client = await signedInClient(app.url, (await makeUser('csv-ok')).id);
    const res = await uploadFile(client, '/api/upload-csv', 'topic_or_keyword,title\nGreen tea,Why green tea\nGreen tea,\n\nMatcha,\n');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      prompts: ['Green tea', 'Matcha'],
      rows: [{ topic: 'Green tea', title: 'Why green tea' }, { topic: 'Matcha' }],
      duplicates: 1,
      emptyRows: 1,
    });
  });

  it('answers translated 4xx messages for a wrong file, too many rows, too many bytes, no file', async () => {
    const client = await signedInClient(app.url, (await makeUser('csv-bad')).id);
    const png = await uploadFile(client, '/api/upload-csv', 'not really', 'photo.png', 'image/png');
    expect(png.status).toBe(400);
    expect((await png.json()).error).toBe('Please upload a CSV file.');
    const rows = await uploadFile(client, '/api/upload-csv', 'topic\n' + Array.from({ length: 1001 }, (_, i) => `T${i}`).join('\n'));
    expect(rows.status).toBe(400);
    expect((await rows.json()).error).toBe('The file has more than 1,000 rows. Split it into smaller files.');
    const big = await uploadFile(client, '/api/upload-csv', 'topic\n' + 'a,'.repeat(CSV_MAX_BYTES / 2 + 10));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toBe('The file is larger than 1 MB. Split it into smaller files.');
    const zh = await uploadFile(client, '/api/upload-csv', 'x', 'a.pdf', 'application/pdf', {
      'accept-language': 'zh-HK',
      cookie: `${client.cookieHeader()}; language=zh-HK`,
    });
    expect((await zh.json()).error).toBe('請上載 CSV 檔案。');
    const none = await client.request('/api/upload-csv', { method: 'POST', body: new FormData() });
    expect(none.status).toBe(400);
    const json = await client.postJson('/api/upload-csv', { prompts: ['x'] });
    expect(json.status).toBe(400);
  });

  it('never answers a 500 for random bodies', async () => {
    const client = await signedInClient(app.url, (await makeUser('csv-fuzz')).id);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), fc.constantFrom('a.csv', 'b.txt', 'c.bin'), async (bytes, name) => {
        const res = await uploadFile(client, '/api/upload-csv', bytes, name, 'text/csv');
        expect(res.status).toBeLessThan(500);
        await res.arrayBuffer();
      }),
      { numRuns: 40 },
    );
    const raw = await client.request('/api/upload-csv', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nbroken',
    });
    expect(raw.status).toBeLessThan(500);
  });

  it('without JavaScript: the form post stores the topics and redirects to the workspace with them', async () => {
    const user = await makeUser('csv-nojs');
    const client = await signedInClient(app.url, user.id);
    const res = await uploadFile(client, '/app/csv', 'topic_or_keyword\nOne\nTwo\n');
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    const id = new URL(location, app.url).searchParams.get('topics');
    expect(await loadTopicDraft(user.id, id)).toMatchObject({ prompts: ['One', 'Two'], source: 'csv' });
    // Another user cannot read it.
    expect(await loadTopicDraft((await makeUser('csv-other')).id, id)).toBeNull();
    const bad = await uploadFile(client, '/app/csv', 'x', 'a.doc', 'application/msword');
    expect(bad.status).toBe(302);
    expect(bad.headers.get('location')).toContain('input=csv');
  });
});
