/**
 * The operations of accounts, users, keys, channels, prices, options, usage and logs.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import {
  type Schema,
  arr,
  bool,
  envelope,
  idParam,
  int,
  logCursor,
  logFilters,
  obj,
  op,
  page,
  pagingParams,
  q,
  ref,
  str,
  usageParams,
} from './kit.ts';

export function mainPathsA(admin: string, root: string): Record<string, Record<string, Schema>> {
  void root;
  return {
    '/api/usage': {
      get: op(
        'usage',
        'Usage report for the dashboard: totals, a series in hour or day buckets, top groups by quota (from hourly roll-ups; ranges are whole hours)',
        envelope(ref('UsageReport')),
        { role: admin, params: usageParams(false) },
      ),
    },
    '/api/usage/self': {
      get: op(
        'usage',
        'Your own usage report (same shape; no user or channel filter, group_by model or key)',
        envelope(ref('UsageReport')),
        { params: usageParams(true) },
      ),
    },
    '/api/user': {
      get: op('users', 'List users', page('User'), {
        role: admin,
        params: [...pagingParams, q('keyword', str()), q('role', str()), q('status', str()), q('group', str())],
      }),
      post: op('users', 'Create a user', envelope(ref('User')), { role: admin, body: ref('UserCreate') }),
    },
    '/api/user/{id}': {
      get: op('users', 'One user', envelope(ref('User')), { role: admin, params: [idParam] }),
      put: op('users', 'Update role, group, status, password, display name', envelope(ref('User')), {
        role: admin,
        params: [idParam],
        body: ref('UserUpdate'),
      }),
      delete: op('users', 'Delete a user and their keys', envelope({ type: 'null' }), { role: admin, params: [idParam] }),
    },
    '/api/user/{id}/quota': {
      post: op('users', 'Top up, deduct or set the balance (writes a ledger row)', envelope(ref('User')), {
        role: admin,
        params: [idParam],
        body: ref('QuotaChange'),
      }),
    },
    '/api/user/{id}/ledger': {
      get: op(
        'users',
        "The user's ledger, newest first: every movement of the balance, with the reason of top-ups and adjustments",
        page('LedgerEntry'),
        { role: admin, params: [idParam, ...pagingParams] },
      ),
    },
    '/api/token': {
      get: op('keys', 'List API keys (your own; admins: ?all=true or ?user_id=)', page('Key'), {
        params: [...pagingParams, q('keyword', str()), q('user_id', int()), q('all', bool())],
      }),
      post: op(
        'keys',
        'Create an API key; the full key is in data.key, shown once',
        envelope({ allOf: [ref('Key'), obj({ key: str() })] }),
        { body: ref('KeyInput') },
      ),
    },
    '/api/token/{id}': {
      get: op('keys', 'One API key', envelope(ref('Key')), { params: [idParam] }),
      put: op('keys', 'Update an API key', envelope(ref('Key')), { params: [idParam], body: ref('KeyInput') }),
      delete: op('keys', 'Delete (revoke) an API key', envelope({ type: 'null' }), { params: [idParam] }),
    },
    '/api/token/{id}/children': {
      post: op(
        'keys',
        "Mint a child key, authenticated by the parent key itself as Bearer; its ceiling is taken out of the parent's remaining ceiling; the full key is in data.key, shown once",
        envelope({ allOf: [ref('Key'), obj({ key: str() })] }),
        { params: [idParam], security: 'key', body: ref('ChildKeyInput') },
      ),
    },
    '/api/token/{id}/callback-secret': {
      post: op(
        'keys',
        'Make a new task callback signing secret for the key (the old one stops signing at once); shown only in this answer',
        envelope(ref('CallbackSecret')),
        { params: [idParam] },
      ),
    },
    '/api/quota/holds': {
      get: op(
        'options',
        'Open quota holds of every node (QuotaAllowanceEnabled): what each has taken, spent and still holds',
        envelope(arr(ref('QuotaHold'))),
        { role: admin },
      ),
    },
    '/api/audit': {
      get: op('audit', 'The audit log of administrative writes, newest first', page('AuditEntry'), {
        role: admin,
        params: [
          ...pagingParams,
          q('p', int('alias of page')),
          q('actor', str('username (system for system writes) or user id')),
          q('target_type', str('user, key, channel, price, group_ratio, option, plugin, marketplace, redemption, task')),
          q('target_id', str()),
          q('action', str('exact, or <type>.* for every action on a type')),
          q('from', int(), 'unix ms (or s), or ISO 8601'),
          q('to', int(), 'unix ms (or s), or ISO 8601'),
        ],
      }),
    },
    '/api/user/self/alerts': {
      get: op('alerts', 'Your low-balance alert settings', envelope(ref('AlertSettings'))),
      put: op(
        'alerts',
        'Set your low-balance threshold, e-mail and webhook (fields not given are kept); a generated webhook secret is in the answer once',
        envelope(ref('AlertSettings')),
        { body: ref('AlertSettingsInput') },
      ),
    },
    '/api/log': {
      get: op('logs', 'Query logs with totals for the filter (newest first, keyset pages)', envelope(ref('LogPage')), {
        role: admin,
        params: [...pagingParams, logCursor, ...logFilters(false)],
      }),
    },
    '/api/log/self': {
      get: op(
        'logs',
        'Your own logs (same filters except user and channel; no channel or upstream model in the rows)',
        envelope(ref('LogPage')),
        { params: [...pagingParams, logCursor, ...logFilters(true)] },
      ),
    },
    '/api/log/export': {
      get: op(
        'logs',
        'The logs of a filter as CSV (newest first), streamed: Content-Disposition attachment',
        str('CSV with a header row, CRLF line ends'),
        { role: admin, params: logFilters(false), contentType: 'text/csv' },
      ),
    },
    '/api/log/self/export': {
      get: op('logs', 'Your own logs as CSV (streamed)', str('CSV with a header row, CRLF line ends'), {
        params: logFilters(true),
        contentType: 'text/csv',
      }),
    },
  };
}
