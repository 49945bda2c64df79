/**
 * The described operations of the team routes that do not declare their own schemas: a team's logs
 * and their CSV export (http/team-routes.ts), with the filters of the user's own logs (/api/log/self).
 */
import { arr, bool, envelope, int, logCursor, logFilters, nullable, obj, op, pagingParams, ref, str, type Schema } from './kit.ts';

/** A page of the team's rows: the rows of /api/log/self (no channel or upstream model), `content` null where hidden. */
const TeamLogPage = obj(
  {
    items: arr(
      obj({ id: int(), user_id: int(), key_id: nullable(int()), content: nullable(str("null: another member's text, hidden")) }, ['id']),
    ),
    total: int(),
    page: int(),
    page_size: int(),
    totals: ref('LogTotals'),
    totals_capped: bool(),
    next_cursor: nullable(str()),
  },
  ['items', 'total', 'page', 'page_size', 'totals', 'totals_capped', 'next_cursor'],
);

const teamId = { name: 'id', in: 'path', required: true, schema: int('team id') };

export function teamPaths(): Record<string, Record<string, Schema>> {
  return {
    '/api/team/{id}/logs': {
      get: op(
        'teams',
        "The team keys' log rows (owners and admins: every member's, without others' request and answer text unless the operator allows it; members: their own)",
        envelope(TeamLogPage),
        { params: [teamId, ...pagingParams, logCursor, ...logFilters(true)] },
      ),
    },
    '/api/team/{id}/logs/export': {
      get: op(
        'teams',
        "The team keys' log rows as CSV (streamed; the same rows as the list)",
        str('CSV with a header row, CRLF line ends'),
        {
          params: [teamId, ...logFilters(true)],
          contentType: 'text/csv',
        },
      ),
    },
  };
}
