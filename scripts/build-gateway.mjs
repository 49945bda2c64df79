#!/usr/bin/env node
/**
 * Compiles the gateway for `npm start`: two ES modules with source maps (the process starts from
 * `packages/gateway/bin/start.mjs`, which turns source maps on for these files, so stack traces name the TypeScript
 * lines). `packages/gateway/dist/main.js` is the entry: it checks the Node.js version and then loads
 * `dist/command.js`, the rest of the gateway, so that a wrong Node.js is told what to do before any native module
 * loads. The serving process loads no TypeScript loader. Packages from node_modules stay outside the bundle and
 * load as usual; the workspace's own TypeScript packages (`@gatehouse/*`) are compiled in, since Node cannot load
 * TypeScript from node_modules.
 *
 * The source maps are cut to line precision (one mapping where a generated line starts or moves to another
 * source line, not one per token): stack traces still name the right file and line, and the process that
 * loads a map keeps about a tenth of the memory a full map takes.
 *
 * Runs from `npm install` (postinstall), `npm run build` and before `npm start`.
 */
import { build } from 'esbuild';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

/** main.ts loads command.ts when the Node.js version fits: from the entry, that import is the other output file. */
const commandApart = {
  name: 'command-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/command\.ts$/ }, () => ({ path: './command.js', external: true }));
  },
};

/** Keeps, per generated line, the segments where the source file or line changes. */
function lineMap(text) {
  const map = JSON.parse(text);
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
  return JSON.stringify(map);
}

// Every file is written whole and then renamed into place: a process starting while another build runs
// (two `npm start` at once) never reads half a file.
mkdirSync(`${gateway}/dist`, { recursive: true });
// command.js before the entry that loads it.
for (const [name, plugins] of [
  ['command', [externals]],
  ['main', [externals, commandApart]],
]) {
  const { outputFiles } = await build({
    entryPoints: [`${gateway}/src/${name}.ts`],
    outfile: `${gateway}/dist/${name}.js`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${minNode}`,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    plugins,
    logLevel: 'warning',
    write: false,
  });
  // The map first: the module names it.
  for (const f of outputFiles.sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')))) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.path.endsWith('.map') ? lineMap(f.text) : f.contents);
    renameSync(tmp, f.path);
  }
}
