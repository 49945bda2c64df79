// How `npm start` runs the compiled gateway: source maps on for the gateway's own bundle (stack traces name
// the TypeScript lines) and off for node_modules, whose published maps Node would otherwise read and keep
// for every package that ships one (about 17 MB of an idle node's memory with `--enable-source-maps`).
// A Node.js too old to have setSourceMapsSupport gets no source maps here: dist/main.js then says which
// Node.js it needs (it checks the version before anything else loads).
import * as mod from 'node:module';

mod.setSourceMapsSupport?.(true, { nodeModules: false, generatedCode: false });
await import('../dist/main.js');
