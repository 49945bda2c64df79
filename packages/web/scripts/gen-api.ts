/**
 * Generates the console's API types (src/api/schema.d.ts) from the gateway's OpenAPI document, built in
 * process from the gateway's registered routes (a gateway built over a throwaway SQLite database, not
 * listening; http/route-docs.ts).
 *
 *   tsx scripts/gen-api.ts           write src/api/schema.d.ts
 *   tsx scripts/gen-api.ts --check   fail when the committed file differs from a fresh generation
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiFromRoutes } from './openapi-from-routes.ts';

const target = fileURLToPath(new URL('../src/api/schema.d.ts', import.meta.url));
const header =
  "/**\n * The gateway's API types, generated from its OpenAPI document by scripts/gen-api.ts.\n * Do not edit: run `npm run gen-api -w @gatehouse/web`.\n */\n\n";

const doc = (await openApiFromRoutes()) as Parameters<typeof openapiTS>[0];
const text = header + astToString(await openapiTS(doc, { alphabetize: true, emptyObjectsUnknown: true }));

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== text) {
    console.error('packages/web/src/api/schema.d.ts is stale: run `npm run gen-api -w @gatehouse/web` and commit it');
    process.exit(1);
  }
  console.log('generated API types are current');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
