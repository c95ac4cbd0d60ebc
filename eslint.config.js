// ESLint (flat config): typescript-eslint, React hooks, accessibility, and the import boundaries of
// ARCHITECTURE.md. `npm run lint`. Formatting is Prettier's job (`npm run format:check`), not ESLint's.
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
  {
    // Services hold the rules: they never reach up into the HTTP or UI layers.
    files: ['app/services/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(~|\\.{1,2})/(.*/)?(routes|components)(/|$)',
              message: 'Services never import routes or components: move the shared code to a service or app/utils.',
            },
          ],
        },
      ],
    },
  },
  {
    // Components run in the browser too: server modules stay out of them (pass data through loaders).
    // A type-only import is erased by the compiler, so it may name a service's data shape.
    files: ['app/components/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '\\.server(\\.tsx?)?$',
              allowTypeImports: true,
              message: 'Components never import *.server modules: load the data in a route loader and pass it as props.',
            },
          ],
        },
      ],
    },
  },
);
