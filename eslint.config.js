// Type-aware lint: unawaited promises around child processes are where orchestrators lose data.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import { readdirSync } from 'node:fs';

// The layers of src/, lowest first (docs/architecture.md "Layers"). A folder may import its own files and the
// folders of lower layers, never a folder of its own layer or above: `npm run lint` refuses the import.
const LAYERS = [
  ['core', 'os'],
  ['agents', 'git', 'store'],
  ['sandbox'],
  ['config'],
  ['prompt'],
  ['spec'],
  ['runner'],
  ['tasks', 'workflow', 'hook', 'notify'],
  ['manager'],
  ['worker', 'server'],
  ['cli'],
];
// A new folder of src/ must take its place in the order: lint refuses to run until it has one.
const unplaced = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !LAYERS.flat().includes(entry.name))
  .map((entry) => entry.name);
if (unplaced.length > 0) throw new Error(`eslint.config.js: src/${unplaced.join(', src/')} has no place in LAYERS: add it to the layer it belongs to`);
const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.map((folder) => {
    const allowed = new Set([folder, ...LAYERS.slice(0, rank).flat()]);
    const forbidden = LAYERS.flat().filter((other) => !allowed.has(other));
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
                message: `src/${folder} is below these folders (layers in eslint.config.js, docs/architecture.md): import downwards only.`,
              },
            ],
          },
        ],
      },
    };
  }),
);
// Past these sizes a file or a function no longer fits one reading: split it by concern.
const sizeRules = {
  'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
};

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
  { files: ['src/**/*.ts', 'web/src/**/*.ts', 'web/src/**/*.tsx'], rules: sizeRules },
  ...layerRules,
  {
    // The dashboard talks to the server through its API; from src/ it may import types and pure helpers only.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+src/(?!core/|config/settings|manager/views|manager/run-request|runner/events|server/schemas)', message: 'web/ may import from src/ only core/, config/settings, manager/views, manager/run-request, runner/events and server/schemas (pure, zod only).' }] },
      ],
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
