/**
 * One owner per table: every SQL statement on a table listed in OWNERS is written in that table's
 * owner modules and nowhere else in the gateway's source (docs/architecture.md#storage). A statement
 * belongs to the table it selects from, inserts into, updates or deletes from (through the query
 * builder, `insertId` or raw SQL text); a join that reads columns of another table is not counted,
 * nor are the migrations (`store/migrations/`), which make and change every table.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Table → the files (relative to src/) that may hold statements on it. */
const OWNERS: Record<string, readonly string[]> = {
  tasks: ['tasks/lifecycle/store.ts'],
  task_callbacks: ['tasks/callbacks/service.ts'],
  node_leases: ['store/leases.ts'],
  alerts: ['alerts/service.ts'],
  logs: ['logs/writer.ts'],
  // Written with the log rows and by the retention; read by the usage reports.
  usage_hourly: ['logs/rollup.ts', 'logs/usage.ts'],
  relay_conversations: ['relay/conversations.ts'],
  channels: ['relay/channel-store.ts'],
  options: ['options/store.ts'],
  // The balance columns (quota, used_quota, request_count) are billing's: the ledger moves them.
  users: ['accounts/user-store.ts', 'billing/ledger.ts'],
  sessions: ['accounts/user-store.ts'],
  user_emails: ['accounts/user-store.ts'],
  email_tokens: ['accounts/user-store.ts'],
  user_passkeys: ['accounts/passkey-store.ts'],
  // remain_quota and used_quota are billing's, as for users.
  api_keys: ['accounts/key-store.ts', 'billing/ledger.ts'],
};

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
    for (const [table, owners] of Object.entries(OWNERS)) {
      if (owners.includes(rel)) continue;
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

test('every statement on an owned table lies in its owner modules', () => {
  for (const owners of Object.values(OWNERS)) for (const o of owners) assert.ok(readFileSync(join(SRC, o)), `${o} exists`);
  const found = strays(sources(SRC), (f) => readFileSync(f, 'utf8'));
  assert.deepEqual(found, [], `statements outside their table's owner (docs/architecture.md#storage):\n${found.join('\n')}`);
});
