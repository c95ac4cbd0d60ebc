import { threadId as mainThreadId } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CSV_MAX_BYTES } from '../../app/catalogue';
import { parseCsvUpload } from '../../app/services/csv-import.server';
import { CSV_PARSE_THREADS, parseCsvUploadOffThread } from '../../app/services/csv-parse-threads.server';
import { connect } from '../../db/client';
import { freshDatabase } from '../support/database';
import { createGenUser } from '../support/generation';
import { signIn, startAppProcess, type AppProcess } from '../support/app-processes';

// CSV files are parsed on worker threads, never on the web process's event loop: a 1 MB file of
// commas keeps csv-parse busy for seconds. Timings are not asserted (a shared 2-core machine);
// what is asserted is where the parse ran and that its answer is the in-thread parser's, to the
// byte. `npm run bench:csv` measures what it does to /healthz.

const enc = (s: string) => new TextEncoder().encode(s);

/** Files that keep a parser busy, each just under the size limit. */
const pathological = {
  // One row of a million empty cells: no topic.
  commas: 'topic\n' + ','.repeat(CSV_MAX_BYTES - 6),
  // A topic and half a million empty cells beside it.
  cells: 'topic\n' + 'a,'.repeat((CSV_MAX_BYTES - 6) / 2),
  // One quoted field of a million characters, doubled quotes inside: too long to be a topic.
  quoted: 'topic\n"' + 'x""'.repeat(Math.floor((CSV_MAX_BYTES - 9) / 3)) + '"\n',
};

describe('parseCsvUploadOffThread', () => {
  it('parses on a worker thread and answers exactly what parseCsvUpload answers', async () => {
    const samples = [
      enc('\uFEFFtopic_or_keyword,other\r\n"Apples, pears and plums",1\r\n"The ""best"" coffee",2\r\n"Two\r\nlines",3\r\n'),
      enc('topic_or_keyword,title,keywords,instructions\nVegan baking,Bake it green,"vegan, cake",Note\nBudget travel,,,\n'),
      Buffer.from('topic\ncaf\xe9 culture\n', 'latin1'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('topic_or_keyword\tnote\r\n香港美食\t1\r\n', 'utf16le')]),
      enc('topic\n"never closed\nmore'),
      enc(''),
      new Uint8Array(CSV_MAX_BYTES + 1).fill(65),
      ...Object.values(pathological).map(enc),
    ];
    for (const bytes of samples) {
      const { result, threadId } = await parseCsvUploadOffThread(bytes);
      expect(threadId).not.toBe(mainThreadId);
      expect(result).toStrictEqual(parseCsvUpload(bytes));
    }
  });

  it('answers what parseCsvUpload answers, whatever the bytes (property test)', async () => {
    const csvish = fc
      .array(fc.constantFrom('a', 'b', ',', ';', '\t', '"', '\n', '\r', ' ', '=', 'é', '\uFEFF', '\u0000', '香'), { maxLength: 300 })
      .map((cs) => enc(cs.join('')));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 2000 }), csvish), async (bytes) => {
        expect((await parseCsvUploadOffThread(bytes)).result).toStrictEqual(parseCsvUpload(bytes));
      }),
      { numRuns: 150 },
    );
  });

  it('leaves the event loop turning while a pathological file is parsed', async () => {
    let turns = 0;
    let parsing = true;
    const turn = () => {
      if (!parsing) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const { result } = await parseCsvUploadOffThread(enc(pathological.commas));
    parsing = false;
    expect(result).toEqual({ ok: false, code: 'noTopics' });
    expect(turns).toBeGreaterThan(0);
  });

  it(`keeps to its ${CSV_PARSE_THREADS} thread(s) however many files come at once, and each file gets its own answer`, async () => {
    const files = Array.from({ length: 6 }, (_, i) => enc(`topic\nTopic ${i}\n` + ','.repeat(200_000)));
    const answers = await Promise.all(files.map((bytes) => parseCsvUploadOffThread(bytes)));
    expect(new Set(answers.map((a) => a.threadId)).size).toBeLessThanOrEqual(CSV_PARSE_THREADS);
    answers.forEach((a, i) => expect(a.result).toMatchObject({ ok: true, data: { prompts: [`Topic ${i}`] } }));
  });
});

describe('the compiled server under three 1 MB pathological uploads at once', () => {
  let web: AppProcess;
  let cookie: string;

  beforeAll(async () => {
    const url = await freshDatabase(inject('clusterUrl'), 'pf_csv_thread');
    const db = connect(url, 1);
    try {
      cookie = await signIn(db, (await createGenUser(db, { label: 'csv-thread' })).id);
    } finally {
      await db.end();
    }
    // debug: each parse logs the thread it ran on.
    web = await startAppProcess('web', { databaseUrl: url, env: { LOG_LEVEL: 'debug' } });
    await web.ready();
  }, 60_000);

  afterAll(async () => {
    await web?.stop('SIGKILL');
  });

  it('answers each upload and every /healthz probe meanwhile; the parses ran on worker threads', async () => {
    const upload = (name: string, text: string) => {
      const form = new FormData();
      form.set('file', new Blob([text], { type: 'text/csv' }), `${name}.csv`);
      return fetch(`${web.url}/api/upload-csv`, { method: 'POST', headers: { cookie, origin: web.url }, body: form }).then(async (r) => ({
        name,
        status: r.status,
        body: (await r.json()) as { prompts?: string[]; error?: string },
      }));
    };
    let uploading = true;
    const probes: number[] = [];
    const probing = (async () => {
      while (uploading) probes.push((await fetch(`${web.url}/healthz`)).status);
    })();
    const answers = await Promise.all(Object.entries(pathological).map(([name, text]) => upload(name, text)));
    uploading = false;
    await probing;

    const byName = Object.fromEntries(answers.map((a) => [a.name, a]));
    expect(byName.cells).toMatchObject({ status: 200, body: { prompts: ['a'] } });
    expect(byName.commas).toMatchObject({ status: 400, body: { error: 'No valid blog topics or keywords found.' } });
    expect(byName.quoted).toMatchObject({ status: 400, body: { error: 'No valid blog topics or keywords found.' } });
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((status) => status === 200)).toBe(true);

    const parses = web
      .output()
      .split('\n')
      .filter((line) => line.includes('"csv parsed"'))
      .map((line) => JSON.parse(line) as { thread: number; bytes: number });
    expect(parses).toHaveLength(3);
    // The main thread is thread 0; the three parses shared the pool's threads.
    for (const p of parses) expect(p.thread).toBeGreaterThan(0);
    expect(new Set(parses.map((p) => p.thread)).size).toBeLessThanOrEqual(CSV_PARSE_THREADS);
  }, 120_000);
});
