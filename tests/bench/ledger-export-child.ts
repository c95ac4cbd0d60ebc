// The benchmark's export process: streams one user's rows as CSV into a byte counter and reports
// rows, seconds and its own peak RSS (the figure the issue bounds at 200 MB).
import { Writable } from 'node:stream';
import { closeSql, sql } from '../../db/client';
import { exportRows } from '../../app/services/ledger-export.server';

let newlines = 0;
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
    done();
  },
});
const start = performance.now();
const manifest = await exportRows(sink, { userId: process.argv[2] }, undefined, sql);
const seconds = (performance.now() - start) / 1000;
await closeSql();
if (newlines - 1 !== manifest.rows) throw new Error(`streamed ${newlines - 1} rows, manifest says ${manifest.rows}`);
process.stdout.write(JSON.stringify({ rows: manifest.rows, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
