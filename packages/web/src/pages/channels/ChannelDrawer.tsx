/** One channel's health: status and reason, last test (and each model's of the last test of all), each key with its state and a switch. */
import { Badge, Code, Drawer, Group, Stack, Switch, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtMs, fmtTime } from '../../lib/format';

export function ChannelDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['channel', id],
    enabled: id !== null,
    queryFn: () => call(client.GET('/api/channel/{id}', { params: { path: { id: id! } } })),
  });
  const setKey = useApiMutation(
    (v: { index: number; enabled: boolean }) =>
      call(
        client.PUT('/api/channel/{id}/keys/{index}', {
          params: { path: { id: id!, index: v.index } },
          body: { enabled: v.enabled, reason: v.enabled ? undefined : 'disabled in the console' },
        }),
      ),
    { invalidate: ['channel', 'channels'], notifyError: true },
  );
  const c = q.data;
  return (
    <Drawer
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={id !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={c ? c.name : t('common.details')}
    >
      {q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        c && (
          <Stack>
            <Group>
              <StatusBadge status={c.status ?? 'enabled'} />
              <Text size="sm">{c.type_name}</Text>
            </Group>
            {c.status_reason && (
              <Text size="sm" c="orange">
                {t('channels.reason')}: {c.status_reason}
              </Text>
            )}
            <Text size="sm">
              {t('channels.baseUrl')}: <Code>{c.base_url || t('channels.defaultUrl')}</Code>
            </Text>
            <Text size="sm">
              {t('channels.lastTest')}: {fmtTime(c.tested_at)} · {fmtMs(c.response_time_ms)}
            </Text>
            <Text size="sm">
              {t('channels.models')}: {(c.models ?? []).join(', ') || '—'}
            </Text>
            {c.last_test && (
              <Table aria-label={t('channels.lastTestAll', { time: fmtTime(c.last_test.at) })}>
                <Table.Caption>{t('channels.lastTestAll', { time: fmtTime(c.last_test.at) })}</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{t('channels.model')}</Table.Th>
                    <Table.Th scope="col">{t('channels.status')}</Table.Th>
                    <Table.Th scope="col">{t('channels.responseTime')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {c.last_test.results.map((r) => (
                    <Table.Tr key={r.model}>
                      <Table.Td>{r.model}</Table.Td>
                      <Table.Td>
                        <Badge color={r.ok ? 'green' : 'red'} variant="light">
                          {r.ok ? t('channels.ok') : t('channels.failed')}
                        </Badge>
                        {!r.ok && (
                          <Text size="xs" c="dimmed">
                            {r.status} · {r.message}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{fmtMs(r.time_ms)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            <Table aria-label={t('channels.keys')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">#</Table.Th>
                  <Table.Th scope="col">{t('channels.key')}</Table.Th>
                  <Table.Th scope="col">{t('channels.status')}</Table.Th>
                  <Table.Th scope="col">{t('channels.since')}</Table.Th>
                  <Table.Th scope="col">{t('common.enabled')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(c.keys ?? []).map((k) => (
                  <Table.Tr key={k.index}>
                    <Table.Td>{k.index}</Table.Td>
                    <Table.Td>
                      <Code>{k.hint}</Code>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={k.status ?? 'enabled'} reason={k.reason} />
                    </Table.Td>
                    <Table.Td>{fmtTime(k.at)}</Table.Td>
                    <Table.Td>
                      <Switch
                        checked={k.status === 'enabled'}
                        aria-label={t('channels.keySwitch', { index: k.index })}
                        onChange={(e) => setKey.mutate({ index: k.index!, enabled: e.currentTarget.checked })}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )
      )}
    </Drawer>
  );
}
