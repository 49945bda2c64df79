import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';

/*
 * The gateway's layers (docs/architecture.md#layers), top first. A file may import its own layer and
 * the layers below it, never one above; type-only imports count as well. Each entry names folders
 * (`http`) or files (`core.ts`) directly under packages/gateway/src.
 */
const LAYERS = [
  ['main.ts', 'command.ts', 'workers.ts', 'cli'],
  ['gateway.ts', 'areas.ts'],
  ['http'],
  ['alerts'],
  ['config-file'],
  ['admin'],
  ['protocols'],
  ['tasks'],
  ['plugins'],
  ['mcp'],
  ['relay'],
  ['channels'],
  ['accounts', 'teams'],
  ['billing'],
  ['logs'],
  ['options'],
  ['core.ts'],
  ['cache'],
  ['store'],
  ['platform'],
];
const SRC = 'packages/gateway/src';

// Every folder and file of the gateway's source has its place in LAYERS.
const unplaced = readdirSync(new URL(`./${SRC}`, import.meta.url)).filter((n) => !LAYERS.flat().includes(n));
if (unplaced.length) throw new Error(`eslint.config.js: give ${unplaced.join(', ')} a place in LAYERS (docs/architecture.md#layers)`);

/** One block per layer and folder depth: the paths of the layers above, as written from that depth. */
function layerRules() {
  const blocks = [];
  LAYERS.forEach((layer, i) => {
    const above = LAYERS.slice(0, i).flat();
    if (!above.length) return;
    for (const entry of layer) {
      const folder = !entry.endsWith('.ts');
      for (let depth = folder ? 1 : 0; depth <= (folder ? 6 : 0); depth++) {
        const up = depth === 0 ? './' : '../'.repeat(depth);
        const files = folder ? [`${SRC}/${entry}/${'*/'.repeat(depth - 1)}*.ts`] : [`${SRC}/${entry}`];
        const group = above.map((a) => (a.endsWith('.ts') ? `${up}${a}` : `${up}${a}/**`));
        blocks.push({
          files,
          rules: {
            'no-restricted-imports': [
              'error',
              {
                patterns: [
                  { group, message: `${entry} may import only its own layer and the layers below it (docs/architecture.md#layers).` },
                ],
              },
            ],
          },
        });
      }
    }
  });
  return blocks;
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'data/**',
      'bench/results/**',
      '**/dist/**',
      'packages/web/src/api/schema.d.ts',
      'packages/gateway/test/fakes/plugins/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        URLSearchParams: 'readonly',
        Blob: 'readonly',
        FormData: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        File: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // No import cycles in the gateway, type-only imports included.
    files: [`${SRC}/**/*.ts`],
    plugins: { 'import-x': importX },
    settings: { 'import-x/extensions': ['.ts'], 'import-x/resolver': { node: { extensions: ['.ts'] } } },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Nor in the web console (its imports name files without extensions).
    files: ['packages/web/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/extensions': ['.ts', '.tsx'], 'import-x/resolver': { node: { extensions: ['.ts', '.tsx'] } } },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Errors come from the catalog (platform/errors.ts): fail(code, …), never an inline status and code.
    files: [`${SRC}/**/*.ts`],
    ignores: [`${SRC}/platform/errors.ts`, `${SRC}/**/*.test.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='GatewayError']",
          message:
            "Build errors with fail('<code>', …) from platform/errors.ts; a new code gets its entry in ERRORS and a row in docs/api.md.",
        },
      ],
    },
  },
  ...layerRules(),
  {
    // Small rooms: no source file over 600 lines; a larger one is split along its sections.
    files: ['packages/*/src/**/*.{ts,tsx}'],
    ignores: ['packages/web/src/api/schema.d.ts'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Example plugins run inside the sandbox: they have `utils` and `console` only.
    files: ['examples/plugins/**/*.js', 'packages/gateway/test/fakes/plugins/**/*.js'],
    languageOptions: { globals: { utils: 'readonly', console: 'readonly' } },
  },
  {
    // The web console (packages/web): React's rules of hooks.
    files: ['packages/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
);
