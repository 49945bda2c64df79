#!/usr/bin/env node
/**
 * Compiles the gateway for `npm start`: one ES module, `packages/gateway/dist/main.js`, with a source map
 * (the process runs with `--enable-source-maps`, so stack traces name the TypeScript lines). The serving
 * process then loads no TypeScript loader. Packages from node_modules stay outside the bundle and load as
 * usual; the workspace's own TypeScript packages (`@gatehouse/*`) are compiled in, since Node cannot load
 * TypeScript from node_modules.
 *
 * Runs from `npm install` (postinstall) and `npm run build`.
 */
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const gateway = `${root}packages/gateway`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const minNode = /(\d+\.\d+)/.exec(pkg.engines.node)?.[1] ?? '22';

/** Bare imports stay external, except the workspace's TypeScript packages. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@gatehouse/') ? undefined : { path: args.path, external: true }));
  },
};

await build({
  entryPoints: [`${gateway}/src/main.ts`],
  outfile: `${gateway}/dist/main.js`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${minNode}`,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  plugins: [externals],
  logLevel: 'warning',
});
