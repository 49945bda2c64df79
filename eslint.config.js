import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'data/**', 'bench/results/**', '**/dist/**', 'packages/web/src/api/schema.d.ts', 'packages/gateway/test/fixtures/plugins/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', fetch: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly',
        performance: 'readonly', URLSearchParams: 'readonly', Blob: 'readonly', FormData: 'readonly',
        Response: 'readonly', Request: 'readonly', Headers: 'readonly', File: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Example plugins run inside the sandbox: they have `utils` and `console` only.
    files: ['examples/plugins/**/*.js', 'packages/gateway/test/fixtures/plugins/**/*.js'],
    languageOptions: { globals: { utils: 'readonly', console: 'readonly' } },
  },
  {
    // The web console (packages/web): React's rules of hooks.
    files: ['packages/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
);
