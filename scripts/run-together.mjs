// Runs several npm scripts at the same time and exits non-zero when any of them fails: `npm test`
// runs its checks (ESLint, Prettier, tsc) and the build this way. Each is a single-threaded Node
// process that mostly waits on nobody, so on two cores they take about half the time one after
// another would. Each script's output is printed whole when it ends, so logs never interleave.
//
//   node scripts/run-together.mjs lint format:check typecheck build
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/run-together.mjs <npm script>...');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();

function run(name) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const out = Buffer.concat(chunks).toString().trimEnd();
      console.log(`\n> ${name}: ${ok ? 'ok' : `FAILED (${signal ?? `exit ${code}`})`} after ${seconds} s${out ? `\n${out}` : ''}`);
      resolve(ok);
    });
  });
}

const results = await Promise.all(names.map(run));
const failed = names.filter((_, i) => !results[i]);
if (failed.length) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
