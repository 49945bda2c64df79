/** The upstream's model list against a channel's: what a sync adds and removes, applied in one update. */
import { Badge, Button, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { useApiMutation } from '../../components/useApiMutation';
import type { Channel } from './types';

export function ModelSyncModal({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['channel-upstream-models', channel.id],
    gcTime: 0,
    // The whole envelope: data is the upstream's list, added and removed sit beside it.
    queryFn: async () => {
      const res = client.GET('/api/channel/fetch_models/{id}', { params: { path: { id: channel.id } } });
      await call(res);
      return (await res).data!;
    },
  });
  const apply = useApiMutation(
    (models: string[]) => call(client.PUT('/api/channel/{id}', { params: { path: { id: channel.id } }, body: { models } })),
    { invalidate: ['channels', 'channel'], notifyError: true, success: t('channels.syncApplied'), onSuccess: onClose },
  );
  const added = q.data?.added ?? [];
  const removed = q.data?.removed ?? [];
  const next = [...(channel.models ?? []).filter((m) => !removed.includes(m)), ...added];
  const list = (items: string[], color: string) =>
    items.length ? (
      <Group gap={4}>
        {items.map((m) => (
          <Badge key={m} color={color} variant="light" tt="none">
            {m}
          </Badge>
        ))}
      </Group>
    ) : (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('channels.syncTitle', { name: channel.name })}
      size="lg"
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      {q.isPending ? (
        <Loader />
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <Stack>
          <Text size="sm">{t('channels.upstreamCount', { count: q.data.data.length })}</Text>
          <Text fw={500} size="sm">
            {t('channels.syncAdded')}
          </Text>
          <div aria-label={t('channels.syncAdded')}>{list(added, 'green')}</div>
          <Text fw={500} size="sm">
            {t('channels.syncRemoved')}
          </Text>
          <div aria-label={t('channels.syncRemoved')}>{list(removed, 'red')}</div>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button disabled={!added.length && !removed.length} loading={apply.isPending} onClick={() => apply.mutate(next)}>
              {t('channels.syncApply')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
