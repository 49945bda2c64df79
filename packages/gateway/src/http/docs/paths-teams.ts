/**
 * The described operations of the team routes that do not declare their own schemas: a team's logs
 * and their CSV export (http/team-routes.ts), with the filters of the user's own logs (/api/log/self).
 */
import { envelope, int, logCursor, logFilters, op, pagingParams, ref, str, type Schema } from './kit.ts';

const teamId = { name: 'id', in: 'path', required: true, schema: int('team id') };

export function teamPaths(): Record<string, Record<string, Schema>> {
  return {
    '/api/team/{id}/logs': {
      get: op(
        'teams',
        "The team keys' log rows (owners and admins: every member's, without others' request and answer text unless the operator allows it; members: their own)",
        envelope(ref('LogPage')),
        { params: [teamId, ...pagingParams, logCursor, ...logFilters(true)] },
      ),
    },
    '/api/team/{id}/logs/export': {
      get: op('teams', "The team keys' log rows as CSV (streamed; the same rows as the list)", str('CSV with a header row, CRLF line ends'), {
        params: [teamId, ...logFilters(true)],
        contentType: 'text/csv',
      }),
    },
  };
}
