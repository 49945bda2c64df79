#!/usr/bin/env node
/**
 * Compiles the gateway for `npm start`: one ES module, `packages/gateway/dist/main.js`, with a source map
 * (the process starts from `packages/gateway/bin/start.mjs`, which turns source maps on for this bundle, so
 * stack traces name the TypeScript lines). The serving
 * process then loads no TypeScript loader. Packages from node_modules stay outside the bundle and load as
 * usual; the workspace's own TypeScript packages (`@gatehouse/*`) are compiled in, since Node cannot load
 * TypeScript from node_modules.
 *
 * The source map is cut to line precision (one mapping where a generated line starts or moves to another
 * source line, not one per token): stack traces still name the right file and line, and the process that
 * loads the map keeps about a tenth of the memory a full map takes.
 *
 * Runs from `npm install` (postinstall), `npm run build` and before `npm start`.
 */
import { build } from 'esbuild';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { readFileSync, writeFileSync } from 'node:fs';
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

/** Keeps, per generated line, the segments where the source file or line changes. */
function lineMap(file) {
  const map = JSON.parse(readFileSync(file, 'utf8'));
  const lines = decode(map.mappings).map((segments) => {
    const kept = [];
    for (const seg of segments) {
      const last = kept.at(-1);
      if (seg.length < 4) continue;
      if (!last || last[1] !== seg[1] || last[2] !== seg[2]) kept.push(seg.slice(0, 4));
    }
    return kept;
  });
  map.mappings = encode(lines);
  delete map.names;
  writeFileSync(file, JSON.stringify(map));
}
lineMap(`${gateway}/dist/main.js.map`);
