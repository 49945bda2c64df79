import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway, TEST_DB, TEST_ROOT_PASSWORD } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

const BIN = fileURLToPath(new URL('../../bin/gatehouse.mjs', import.meta.url));

function cli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, GATEHOUSE_TOKEN: '', GATEHOUSE_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    p.stdin.end(input ?? '');
  });
}

// The CLI is an HTTP client: the database behind the gateway does not matter, so it runs once (SQLite).
test(
  'CLI: from a running gateway to a first API key without a browser',
  { skip: TEST_DB !== 'sqlite' && 'database-independent' },
  async () => {
    const gw = await startTestGateway();
    const home = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    try {
      const noLogin = await cli(['user', 'list', '--url', gw.url], env);
      assert.notEqual(noLogin.code, 0);
      assert.match(noLogin.stderr, /not logged in/);

      const login = await cli(['login', '--url', gw.url, '--username', 'root', '--password-stdin'], env, `${TEST_ROOT_PASSWORD}\n`);
      assert.equal(login.code, 0, login.stderr);
      const credFile = join(home, '.config', 'gatehouse', 'credentials.json');
      const creds = JSON.parse(readFileSync(credFile, 'utf8'));
      assert.equal(creds.default, gw.url);
      assert.match(creds.servers[gw.url].token, /^ghs-/, 'a command-line session of its own');
      assert.equal(statSync(credFile).mode & 0o077, 0, 'credentials are private to the user');

      // After login, --url is not needed: the stored default is used.
      const add = await cli(['user', 'add', 'newbie', '--quota-usd', '3', '--password', 'newbie-password'], env);
      assert.equal(add.code, 0, add.stderr);
      assert.match(add.stdout, /Created user newbie/);
      const top = await cli(['user', 'topup', 'newbie', '2'], env);
      assert.equal(top.code, 0, top.stderr);
      assert.match(top.stdout, /balance now \$5/);

      const ch = await cli(
        ['channel', 'add', 'upstream', '--type', 'openai', '--base-url', 'http://127.0.0.1:9', '--key-stdin', '--models', 'gpt-4o-mini'],
        env,
        'sk-cli-upstream-key-0123456789abcdef\n',
      );
      assert.equal(ch.code, 0, ch.stderr);
      assert.match(ch.stdout, /Created channel "upstream" \(id \d+, openai, 1 key/);
      const badCh = await cli(['channel', 'add', 'broken', '--type', 'openai', '--key', 'k', '--models', 'm', '--base-url', 'nope'], env);
      assert.notEqual(badCh.code, 0);
      assert.match(badCh.stderr, /base_url: must be an http\(s\) URL/);
      const claude = await cli(
        ['channel', 'add', 'claude', '--type', 'anthropic', '--key', 'sk-ant', '--models', 'claude-x', '--prompt-cache-ttl', '1h'],
        env,
      );
      assert.equal(claude.code, 0, claude.stderr);
      const badCache = await cli(
        ['channel', 'add', 'claude-2', '--type', 'anthropic', '--key', 'k', '--models', 'm', '--prompt-cache', 'always'],
        env,
      );
      assert.notEqual(badCache.code, 0);
      assert.match(badCache.stderr, /settings\.prompt_cache: must be one of auto, off/);
      const chList = await cli(['channel', 'list'], env);
      assert.match(chList.stdout, /upstream/);
      assert.equal(chList.stdout.includes('sk-cli-upstream-key-0123456789abcdef'), false);
      const dis = await cli(['channel', 'disable', '1', '--reason', 'test'], env);
      assert.match(dis.stdout, /is disabled/);

      const price = await cli(['price', 'set', 'gpt-4o-mini', '--input', '0.15', '--output', '0.6'], env);
      assert.equal(price.code, 0, price.stderr);
      assert.match(price.stdout, /input \$0\.15\/1M, output \$0\.6\/1M/);

      const badBudget = await cli(['key', 'create', 'nope', '--budget-usd', '2'], env);
      assert.notEqual(badBudget.code, 0);
      assert.match(badBudget.stderr, /budget_period: is required with a budget/);
      const key = await cli(
        [
          'key',
          'create',
          'first',
          '--user',
          'newbie',
          '--models',
          'gpt-4o-mini',
          '--rpm',
          '30',
          '--budget-usd',
          '2',
          '--budget-period',
          'day',
        ],
        env,
      );
      assert.equal(key.code, 0, key.stderr);
      const sk = /(sk-[A-Za-z0-9]{48})/.exec(key.stdout)?.[1];
      assert.ok(sk, key.stdout);
      const p = gw.services.accounts.keys.authenticate(sk, '127.0.0.1');
      assert.equal(p.username, 'newbie');
      assert.equal(p.keyLimits?.rpm, 30);
      assert.deepEqual(
        p.budgets?.map((b) => [b.usd, b.period]),
        [[2, 'day']],
      );
      // Right after creating a key for someone else, a plain list says whose keys it shows.
      const own = await cli(['key', 'list'], env);
      assert.match(own.stdout, /0 key\(s\) of your own account \(--user NAME or --all/);
      const theirs = await cli(['key', 'list', '--user', 'newbie'], env);
      assert.match(theirs.stdout, /first[\s\S]*1 key\(s\) of user newbie/);
      const keys = await cli(['key', 'list', '--all', '--json'], env);
      const listed = JSON.parse(keys.stdout);
      assert.equal(listed.total, 1);
      assert.equal(keys.stdout.includes(sk), false);
      const rev = await cli(['key', 'revoke', String(listed.items[0].id)], env);
      assert.equal(rev.code, 0, rev.stderr);
      assert.throws(() => gw.services.accounts.keys.authenticate(sk, '127.0.0.1'), /invalid API key/);

      // Offline config check.
      const good = join(home, 'ok.yaml');
      writeFileSync(good, 'prices:\n  m: { input: 1 }\n');
      const chk = await cli(['config', 'check', good], env);
      assert.equal(chk.code, 0, chk.stderr);
      assert.match(chk.stdout, /OK \(0 user\(s\), 0 key\(s\), 0 channel\(s\), 1 price/);
      const badFile = join(home, 'bad.yaml');
      writeFileSync(badFile, 'channels:\n  - name: x\n    type: warp\n');
      const chk2 = await cli(['config', 'check', badFile], env);
      assert.notEqual(chk2.code, 0);
      assert.match(chk2.stderr, /channels\[0\]\.type/);

      // Own password: a wrong current password is refused; a change ends the old token and stores a new one.
      const credFileBefore = readFileSync(credFile, 'utf8');
      const wrong = await cli(['password', '--password-stdin'], env, 'not-the-password\nnew-root-password\n');
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /old_password/);
      const pw = await cli(['password', '--password-stdin'], env, `${TEST_ROOT_PASSWORD}\nnew-root-password\n`);
      assert.equal(pw.code, 0, pw.stderr);
      assert.match(pw.stdout, /Password of root changed/);
      const oldToken = JSON.parse(credFileBefore).servers[gw.url].token as string;
      assert.equal(
        (await fetch(`${gw.url}/api/user/self`, { headers: { authorization: `Bearer ${oldToken}` } })).status,
        401,
        'the old token ended',
      );
      assert.equal((await cli(['user', 'list'], env)).code, 0, 'the new token works');
      const oldLogin = await cli(['login', '--username', 'root', '--password-stdin'], env, `${TEST_ROOT_PASSWORD}\n`);
      assert.notEqual(oldLogin.code, 0);
    } finally {
      await gw.stop();
    }
  },
);

test(
  'CLI: --help, -h and --version answer without starting the server',
  { skip: TEST_DB !== 'sqlite' && 'database-independent' },
  async () => {
    // PORT=1 would be refused if the server tried to start, so a served prompt cannot pass for an answer.
    const env = { PORT: '1', HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:' };
    for (const args of [['--help'], ['-h'], ['serve', '--help'], ['help']]) {
      const r = await cli(args, env);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^usage: gatehouse/, args.join(' '));
      assert.match(r.stdout, /HOST and PORT/);
    }
    const v = await cli(['--version'], env);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /^gatehouse \d+\.\d+\.\d+\n$/);
  },
);

test(
  'CLI: several logins of one user are sessions of their own; logout ends only its own',
  { skip: TEST_DB !== 'sqlite' && 'database-independent' },
  async () => {
    const gw = await startTestGateway();
    const homes = [mkdtempSync(join(tmpdir(), 'gatehouse-cli-a-')), mkdtempSync(join(tmpdir(), 'gatehouse-cli-b-'))];
    const envs = homes.map((home) => ({ HOME: home, XDG_CONFIG_HOME: '' }));
    try {
      for (const env of envs) {
        const r = await cli(['login', '--url', gw.url, '--username', 'root', '--password-stdin'], env, `${TEST_ROOT_PASSWORD}\n`);
        assert.equal(r.code, 0, r.stderr);
      }
      // The second login ended nothing: both command lines work.
      for (const env of envs) assert.equal((await cli(['user', 'list'], env)).code, 0);
      // A personal access token issued meanwhile (the console's) ends no command-line session either.
      const root = await AdminClient.login(gw.url);
      await root.ok('POST', '/api/user/token', { password: TEST_ROOT_PASSWORD });
      assert.equal((await cli(['user', 'list'], envs[0])).code, 0);

      const out = await cli(['logout'], envs[0]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /Logged out/);
      const after = await cli(['user', 'list', '--url', gw.url], envs[0]);
      assert.notEqual(after.code, 0, 'the first command line is logged out');
      assert.equal((await cli(['user', 'list'], envs[1])).code, 0, 'the second is still logged in');
      // The ended session is gone on the gateway too: its token no longer works.
      const token = JSON.parse(readFileSync(join(homes[1], '.config', 'gatehouse', 'credentials.json'), 'utf8')).servers[gw.url]
        .token as string;
      assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      await cli(['logout'], envs[1]);
      assert.equal((await fetch(`${gw.url}/api/user/self`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
    } finally {
      await gw.stop();
      for (const h of homes) rmSync(h, { recursive: true, force: true });
    }
  },
);
