/** A coloured badge for a status word (enabled, auto_disabled, SUCCESS, …), translated, with an optional reason. */
import { Badge, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const COLORS: Record<string, string> = {
  enabled: 'green',
  disabled: 'gray',
  auto_disabled: 'orange',
  expired: 'gray',
  exhausted: 'red',
  SUCCESS: 'green',
  FAILURE: 'red',
  UNKNOWN: 'orange',
  IN_PROGRESS: 'blue',
  QUEUED: 'cyan',
  SUBMITTED: 'cyan',
  NOT_START: 'gray',
  registered: 'green',
  compile_failed: 'red',
  not_registered: 'orange',
  settled: 'green',
  refunded: 'gray',
  reserved: 'blue',
  reserving: 'cyan',
  none: 'gray',
  consume: 'blue',
  error: 'red',
  task: 'grape',
  system: 'gray',
  topup: 'teal',
  mcp: 'indigo',
  root: 'red',
  admin: 'orange',
  user: 'blue',
  waiting: 'gray',
  pending: 'blue',
  delivered: 'green',
  failed: 'red',
  skipped: 'gray',
};

export function StatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  const { t } = useTranslation();
  const label = t(`status.${status}` as 'status.enabled', { defaultValue: status });
  const badge = (
    // Never narrower than its word: in a narrow table column (a phone) the cell grows instead of cutting the label.
    <Badge color={COLORS[status] ?? 'gray'} variant="dot" tabIndex={reason ? 0 : undefined} style={{ minWidth: 'max-content' }}>
      {label}
    </Badge>
  );
  return reason ? (
    <Tooltip label={reason} multiline maw={360} withArrow>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
