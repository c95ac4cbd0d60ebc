// ESLint (flat config): typescript-eslint, React hooks, accessibility, and the import boundaries of
// ARCHITECTURE.md. `npm run lint`. Formatting is Prettier's job (`npm run format:check`), not ESLint's.
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Each floor as the import paths that reach it: the `~/` alias (app/) or a relative path.
const floor = {
  routes: '^(~/|(\\.{1,2}/)+(app/)?)routes(/|$)',
  components: '^(~/|(\\.{1,2}/)+(app/)?)components(/|$)',
  http: '^(~/|(\\.{1,2}/)+(app/)?)http(/|$)',
  services: '^(~/|(\\.{1,2}/)+(app/)?)services(/|$)',
  queue: '^(~/|(\\.{1,2}/)+(app/)?)queue(/|$)',
  db: '^(\\.{1,2}/)+db(/|$)',
  jobs: '^(\\.{1,2}/)+jobs(/|$)',
  runtime: '^(~/|(\\.{1,2}/)+(app/)?)(runtime(/|$)|i18n\\.server$)',
  utils: '^(~/|(\\.{1,2}/)+(app/)?)utils(/|$)',
  node: '^node:',
  server: '\\.server(\\.tsx?)?$',
};

const why = {
  routes: 'Nothing imports a route module: move what is shared into app/http, a service or app/utils.',
  components: 'Only routes and components import components: move shared types or helpers into app/utils.',
  http: 'app/http is route glue: only routes (and server.ts) import it. Move what lower floors need down.',
  services: 'Services sit above this floor: pass the data in, or move the rule into a service.',
  queue: 'app/queue is reached through services: routes, components and the HTTP glue call a service that enqueues.',
  db: 'Only services, the queue and the worker touch the database: call a service.',
  jobs: 'jobs/ is the worker, a door beside app/routes: nothing in app/ or db/ imports it. Shared queue code lives in app/queue.',
  runtime:
    "app/runtime (with i18n.server) is the server process's infrastructure: env, logger, request scope, workers. Pure helpers and the catalogue stay below it: pass the value in.",
  utils: 'The ground floor (catalogue, i18n) imports nothing of ours but the catalogues.',
  node: 'app/utils is pure (no I/O, no process, no server state): code that needs Node belongs in app/runtime.',
  server: 'Components run in the browser too: load the data in a route loader and pass it as props.',
};

/** One ESLint config object forbidding, for `files`, imports of each named floor (types too unless allowed). */
function fence(files, forbidden, { allowTypeImports = [] } = {}) {
  return {
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: forbidden.map((name) => ({
            regex: floor[name],
            allowTypeImports: allowTypeImports.includes(name),
            message: why[name],
          })),
        },
      ],
    },
  };
}

export function floorFences() {
  return [
    fence(['app/routes/**'], ['db', 'queue', 'jobs']),
    // A type-only import is erased by the compiler, so a component may name a server module's data shape.
    fence(['app/components/**'], ['routes', 'http', 'db', 'queue', 'jobs', 'runtime', 'server'], { allowTypeImports: ['http', 'server'] }),
    fence(['app/http/**'], ['routes', 'components', 'db', 'queue', 'jobs']),
    fence(['app/services/**'], ['routes', 'components', 'http', 'jobs']),
    fence(['app/queue/**'], ['routes', 'components', 'http', 'services', 'jobs']),
    fence(['db/**'], ['routes', 'components', 'http', 'services', 'queue', 'jobs']),
    fence(['app/runtime/**', 'app/i18n.server.ts'], ['routes', 'components', 'http', 'services', 'queue', 'db', 'jobs']),
    fence(['app/utils/**'], ['routes', 'components', 'http', 'services', 'queue', 'db', 'jobs', 'runtime', 'node']),
    // Pure helpers read no environment and touch no process: what they need is passed in.
    { files: ['app/utils/**'], rules: { 'no-restricted-globals': ['error', { name: 'process', message: why.node }] } },
    fence(['app/catalogue.ts', 'app/i18n.ts'], ['routes', 'components', 'http', 'services', 'queue', 'db', 'jobs', 'runtime', 'utils']),
    fence(['jobs/**', 'app/cli/**'], ['routes', 'components', 'http']),
  ];
}

export default tseslint.config(
  { ignores: ['build/**', 'public/build/**', '.cache/**', '.data/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  jsxA11y.flatConfigs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      // The two classic hook rules (the React Compiler rules of `recommended` v7 target code written for it).
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Playwright fixtures: `async ({}, use) => ...` is its idiom, and `use` is not React's.
    files: ['tests/e2e/**'],
    rules: { 'no-empty-pattern': 'off', 'react-hooks/rules-of-hooks': 'off' },
  },
  // The floors of ARCHITECTURE.md, top down: routes (and components) > http > services > queue > db
  // > runtime (with i18n.server) > utils > catalogue and i18n. A module imports only floors below its
  // own; jobs/ is a second door beside routes (it may call services, the queue and db, never the HTTP glue).
  ...floorFences(),
  // One way to link to the app's own pages: AppLink, followed by the root's one click handler.
  {
    files: ['app/**/*.ts', 'app/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@remix-run/react',
              importNames: ['Link', 'NavLink'],
              message: "Link to the app's pages with AppLink (app/components/ui/app-link.tsx): a plain anchor the page follows itself.",
            },
          ],
        },
      ],
    },
  },
);
