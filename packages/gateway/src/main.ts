/**
 * The `gatehouse` command's entry: checks the Node.js version before anything else loads (a native module
 * built for another Node.js would crash with an obscure error), then runs the command (command.ts).
 */
import { readFileSync } from 'node:fs';
import { nativeModuleProblem, nodeVersionProblem } from './platform/node-version.ts';

/** The supported range, from the repository's package.json (this file is src/main.ts or dist/main.js of packages/gateway). */
function supportedRange(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
    return pkg.engines?.node ?? null;
  } catch {
    return null;
  }
}

const range = supportedRange();
const problem = range && nodeVersionProblem(range, process.version, process.execPath);
if (problem) {
  process.stderr.write(problem);
  process.exit(1);
}
try {
  await import('./command.ts');
} catch (e) {
  const native = nativeModuleProblem(e, process.version, process.versions.modules);
  if (!native) throw e;
  process.stderr.write(native);
  process.exit(1);
}
