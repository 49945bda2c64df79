/**
 * One owner per table: every table of the schema is listed in OWNERS, and every SQL statement on it is
 * written in its owner module and nowhere else in the gateway's source (docs/architecture.md#storage),
 * but for the columns another module is given (the ledger's balance columns). A statement
 * belongs to the table it selects from, inserts into, updates or deletes from (through the query
 * builder, `insertId` or raw SQL text); a join that reads columns of another table is not counted,
 * nor are the migrations (`store/migrations/`), which make and change every table.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb } from './db.ts';
import { migrate } from './migrations/index.ts';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every table → its owner module (relative to src/), the one file that holds its statements, and the
 * other files that may change or read some of its columns, with what they do. The list is the one in
 * docs/architecture.md#storage; a table missing here fails the test.
 */
const OWNERS: Record<string, { owner: string; shared?: Record<string, string> }> = {
  users: {
    owner: 'accounts/user-store.ts',
    shared: { 'billing/ledger-statements.ts': 'the balance columns quota, used_quota, request_count' },
  },
  sessions: { owner: 'accounts/user-store.ts' },
  user_emails: { owner: 'accounts/user-store.ts' },
  email_tokens: { owner: 'accounts/user-store.ts' },
  api_keys: {
    owner: 'accounts/key-store.ts',
    shared: {
      'billing/ledger-statements.ts': 'the balance columns remain_quota, used_quota',
      'billing/key-ceilings.ts': "a parent key's remain_quota, less a child key's ceiling",
    },
  },
  user_passkeys: { owner: 'accounts/passkey-store.ts' },
  user_totp: { owner: 'accounts/two-factor.ts' },
  user_recovery_codes: { owner: 'accounts/two-factor.ts' },
  auth_challenges: { owner: 'accounts/two-factor.ts' },
  sso_providers: { owner: 'accounts/sso-providers.ts' },
  mcp_servers: { owner: 'mcp/servers.ts' },
  sso_identities: { owner: 'accounts/sso.ts' },
  teams: {
    owner: 'teams/store.ts',
    shared: { 'billing/ledger-statements.ts': 'the wallet columns quota, used_quota, request_count' },
  },
  team_members: { owner: 'teams/store.ts' },
  team_invitations: { owner: 'teams/store.ts' },
  ledger: { owner: 'billing/ledger-statements.ts' },
  quota_holds: { owner: 'billing/ledger-statements.ts' },
  open_reserves: { owner: 'billing/ledger-statements.ts' },
  budget_spend: { owner: 'billing/ledger-statements.ts' },
  budget_reserves: { owner: 'billing/ledger-statements.ts' },
  plans: { owner: 'billing/plan-store.ts' },
  plan_subscriptions: { owner: 'billing/plan-store.ts' },
  prices: { owner: 'billing/price-store.ts' },
  group_ratios: { owner: 'billing/price-store.ts' },
  redemptions: { owner: 'billing/redemption.ts', shared: { 'billing/ledger-statements.ts': 'the claim of a code, in its credit' } },
  payments: { owner: 'billing/payments/index.ts', shared: { 'billing/ledger-statements.ts': 'the claim of a payment, in its credit' } },
  channels: { owner: 'channels/store.ts' },
  relay_conversations: { owner: 'relay/conversations.ts' },
  relay_responses: { owner: 'relay/response-store.ts' },
  tasks: { owner: 'tasks/lifecycle/store.ts' },
  task_callbacks: { owner: 'tasks/callbacks/service.ts' },
  plugins: { owner: 'plugins/admin/service.ts' },
  plugin_versions: { owner: 'plugins/admin/service.ts' },
  logs: { owner: 'logs/writer.ts' },
  usage_hourly: { owner: 'logs/rollup.ts' },
  audit_log: { owner: 'logs/audit.ts' },
  alerts: { owner: 'alerts/service.ts' },
  user_alert_settings: { owner: 'alerts/service.ts' },
  options: { owner: 'options/store.ts' },
  revisions: { owner: 'cache/sync.ts' },
  node_leases: { owner: 'store/leases.ts' },
};

/** Files whose statements name their table through a variable: the helper every owner inserts with, and the tasks' MySQL index hint. */
const DYNAMIC_TABLE = new Set(['store/db.ts', 'tasks/lifecycle/store.ts']);

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The text without comments (a `//` inside a string may cut a line short; that only hides text). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Patterns that name a statement on `table`. */
function statementPatterns(table: string): RegExp[] {
  const q = `['"\`]${table}(?: as \\w+)?['"\`]`;
  return [
    new RegExp(`\\b(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\\(\\s*${q}`),
    new RegExp(`\\binsertId\\([^)]*?,\\s*${q}`),
    new RegExp(`\\b(?:FROM|INTO|UPDATE|JOIN|from|into|update|join)\\s+[\`"]?${table}\\b(?![\\w'-])`),
  ];
}

/** Each table's statements found outside its owners, as `file:line table`. */
function strays(files: readonly string[], read: (f: string) => string): string[] {
  const out: string[] = [];
  for (const f of files) {
    const rel = relative(SRC, f).split('\\').join('/');
    // Migrations make and change every table once, before any owner runs.
    if (rel.startsWith('store/migrations/')) continue;
    const lines = code(read(f)).split('\n');
    for (const [table, o] of Object.entries(OWNERS)) {
      if (o.owner === rel || (o.shared && rel in o.shared)) continue;
      const pats = statementPatterns(table);
      lines.forEach((line, i) => {
        if (pats.some((p) => p.test(line))) out.push(`${rel}:${i + 1} ${table}`);
      });
    }
  }
  return out;
}

test('the patterns find statements written each way', () => {
  const hit = (s: string) => statementPatterns('channels').some((p) => p.test(s));
  assert.ok(hit(`db.selectFrom('channels').selectAll()`));
  assert.ok(hit(`tx.updateTable( 'channels as c')`));
  assert.ok(hit(`await insertId(this.db, this.core.h.dialect, 'channels', {`));
  assert.ok(hit('sql`SELECT id FROM channels WHERE id = ${id}`'));
  assert.ok(hit(`'UPDATE channels SET status = 2'`));
  assert.ok(!hit(`await this.changes.changed('channels');`), 'a revision name is no statement');
  assert.ok(!hit(`.innerJoin('channels as c', 'c.id', 'l.channel_id')`), 'a join is counted for the table it reads from');
  assert.ok(!hit(`// disabled channels from the list`));
});

/** The tables the schema declares (store/schema-*.ts: the members of each `…Tables` interface). */
function schemaTables(): string[] {
  const out: string[] = [];
  for (const f of readdirSync(join(SRC, 'store')).filter((n) => /^schema-.*\.ts$/.test(n) && !n.endsWith('.test.ts'))) {
    for (const m of readFileSync(join(SRC, 'store', f), 'utf8').matchAll(/export interface \w+Tables \{([^}]*)\}/g)) {
      for (const t of m[1].matchAll(/^\s*(\w+):/gm)) out.push(t[1]);
    }
  }
  return out.sort();
}

/** The tables the migrations create (temporary copies such as `ledger_new` are renamed over their table). */
function migratedTables(): string[] {
  const out = new Set<string>();
  for (const f of readdirSync(join(SRC, 'store/migrations'))) {
    for (const m of readFileSync(join(SRC, 'store/migrations', f), 'utf8').matchAll(/createTable\(\s*'(\w+)'/g)) out.add(m[1]);
  }
  return [...out].sort();
}

test('every table has an owner: the list covers the schema and the migrations, and its files exist', () => {
  const listed = Object.keys(OWNERS).sort();
  assert.deepEqual(
    schemaTables().filter((t) => !(t in OWNERS)),
    [],
    'tables without an owner in OWNERS and docs/architecture.md#storage',
  );
  assert.deepEqual(listed, schemaTables(), 'OWNERS names only tables of the schema');
  assert.deepEqual(migratedTables(), schemaTables(), 'the migrations create the tables of the schema');
  for (const o of Object.values(OWNERS)) {
    for (const f of [o.owner, ...Object.keys(o.shared ?? {})]) assert.ok(readFileSync(join(SRC, f)), `${f} exists`);
  }
});

test('the owner list of docs/architecture.md is this one', () => {
  const doc = readFileSync(new URL('../../../../docs/architecture.md', import.meta.url), 'utf8');
  const rows = new Map<string, string>();
  for (const m of doc.matchAll(/^\s*\| ((?:`\w+`(?:, )?)+) \| `([\w/.-]+\.ts)`/gm)) {
    for (const t of m[1].matchAll(/`(\w+)`/g)) rows.set(t[1], m[2]);
  }
  assert.deepEqual(
    Object.fromEntries([...rows].sort()),
    Object.fromEntries(
      Object.entries(OWNERS)
        .map(([t, o]) => [t, o.owner])
        .sort(),
    ),
  );
});

test('statements name their table (outside the migrations and the listed helpers)', () => {
  const found: string[] = [];
  for (const f of sources(SRC)) {
    const rel = relative(SRC, f).split('\\').join('/');
    if (rel.startsWith('store/migrations/') || DYNAMIC_TABLE.has(rel)) continue;
    code(readFileSync(f, 'utf8'))
      .split('\n')
      .forEach((line, i) => {
        if (/\b(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*[^\s'"`]/.test(line))
          found.push(`${rel}:${i + 1}`);
      });
  }
  assert.deepEqual(found, [], 'a statement whose table is a variable hides from the owner check');
});

test('every statement on a table lies in its owner module', () => {
  const found = strays(sources(SRC), (f) => readFileSync(f, 'utf8'));
  assert.deepEqual(found, [], `statements outside their table's owner (docs/architecture.md#storage):\n${found.join('\n')}`);
});

test('every table of a migrated database has an owner', async () => {
  const h = await openDb('sqlite::memory:');
  try {
    await migrate(h);
    const rows = h.sqlite!.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as {
      name: string;
    }[];
    const tables = rows.map((r) => r.name).filter((n) => !n.startsWith('gh_migrations'));
    assert.ok(tables.length > 0, 'the migrations create tables');
    assert.deepEqual(
      tables.filter((t) => !(t in OWNERS)).sort(),
      [],
      'tables of the migrated database without an owner in OWNERS and docs/architecture.md#storage',
    );
    assert.deepEqual(tables.sort(), Object.keys(OWNERS).sort(), 'OWNERS names only tables the migrations leave');
  } finally {
    await h.close();
  }
});
