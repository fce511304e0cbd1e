// Type-aware lint: unawaited promises around child processes are where orchestrators lose data.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['eslint.config.js', 'dist/**', 'dist-check/**', 'node_modules/**', 'bench/results/**', 'bin/**', 'test/fixtures/**/*.js', 'test/fixtures/**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The dashboard runs in the browser: browser globals, and the rules of React hooks.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
    languageOptions: { globals: { ...globals.browser } },
    // Only about the React Compiler's memoisation, which the dashboard does not use.
    rules: { ...reactHooks.configs.flat['recommended-latest'].rules, 'react-hooks/incompatible-library': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.node }, parserOptions: { projectService: false, project: null } },
  },
);
