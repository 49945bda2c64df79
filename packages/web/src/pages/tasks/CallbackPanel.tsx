/**
 * A task's completion callback on the console's task details: where it goes, its delivery id and
 * state, and each delivery attempt (time, HTTP status or error, duration). Times are unix ms.
 */
import { Code, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../../api/client';
import { DetailList } from '../../components/DetailList';
import { StatusBadge } from '../../components/StatusBadge';
import { fmtTime } from '../../lib/format';

export function CallbackPanel({ callback }: { callback: Schemas['TaskCallback'] | null | undefined }) {
  const { t } = useTranslation();
  if (!callback) return null;
  const c = callback;
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {t('tasks.callback')}
      </Title>
      <DetailList
        items={[
          [
            t('tasks.callbackUrl'),
            <Code key="u" style={{ wordBreak: 'break-all' }}>
              {c.url}
            </Code>,
          ],
          [t('tasks.deliveryId'), <Code key="d">{c.delivery_id}</Code>],
          [t('tasks.status'), <StatusBadge key="s" status={c.status} reason={c.last_error} />],
          [t('tasks.callbackAttempts'), c.attempts],
          [t('tasks.nextAttempt'), fmtTime(c.next_attempt_at)],
          [t('tasks.delivered'), fmtTime(c.delivered_at)],
        ]}
      />
      {c.history.length > 0 ? (
        <Table striped withTableBorder fz="sm" aria-label={t('tasks.callbackHistory')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('tasks.attemptAt')}</Table.Th>
              <Table.Th>{t('tasks.attemptResult')}</Table.Th>
              <Table.Th>{t('tasks.attemptMs')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {c.history.map((a, i) => (
              <Table.Tr key={i}>
                <Table.Td>{fmtTime(a.at)}</Table.Td>
                <Table.Td>
                  {a.status !== null ? `HTTP ${a.status}` : ''}
                  {a.error ? (
                    <Text span size="sm" c="red">
                      {a.status !== null ? ' — ' : ''}
                      {a.error}
                    </Text>
                  ) : null}
                </Table.Td>
                <Table.Td>{a.duration_ms}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text size="sm" c="dimmed">
          {t('tasks.noAttempts')}
        </Text>
      )}
    </Stack>
  );
}
