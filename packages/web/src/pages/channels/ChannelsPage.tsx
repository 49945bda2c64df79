/**
 * Channels (admin): list with health (status and reason, per-key state), create and edit with the
 * fields of each type, test one or all (or every model of one), enable and disable, per-key switches in
 * the detail drawer; the upstream's balance and model list, copies, tags enabled or disabled together,
 * every disabled channel deleted.
 */
import { ActionIcon, Badge, Button, Group, Menu, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { IconDots, IconPlayerPlay, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtMs, fmtTime } from '../../lib/format';
import { ModelSyncModal } from './ModelSyncModal';
import { TagEditModal } from './TagEditModal';
import { ChannelDrawer } from './ChannelDrawer';
import { ChannelForm } from './ChannelForm';
import { TestAllModal } from './TestAllModal';
import { CHANNEL_TYPES, type Channel } from './types';

type Filters = { keyword: string; type: string; status: string; group: string; tag: string };

export default function ChannelsPage() {
  const { t } = useTranslation();
  const list = usePagedQuery<Channel, Filters>('channels', { keyword: '', type: '', status: '', group: '', tag: '' }, (q) =>
    call(client.GET('/api/channel', { params: { query: compact(q) } })),
  );
  const filters = useForm<Filters>({ initialValues: list.filters });
  const [editing, setEditing] = useState<Channel | null>(null);
  const [formOpen, form] = useDisclosure();
  const [detail, setDetail] = useState<number | null>(null);
  const [testAll, testAllModal] = useDisclosure();
  const [deleting, setDeleting] = useState<Channel | null>(null);
  const [syncing, setSyncing] = useState<Channel | null>(null);
  const [purging, setPurging] = useState(false);
  const [tagEditing, setTagEditing] = useState<string | null>(null);
  const balance = useApiMutation((c: Channel) => call(client.GET('/api/channel/update_balance/{id}', { params: { path: { id: c.id } } })), {
    invalidate: ['channels', 'channel'],
    notifyError: true,
    success: (d) => t('channels.balanceRead', { balance: d.balance }),
  });
  const testModels = useApiMutation((c: Channel) => call(client.POST('/api/channel/{id}/test_all', { params: { path: { id: c.id } } })), {
    invalidate: ['channels', 'channel'],
    notifyError: true,
    success: (d) => t('channels.modelsTested', { ok: d.results.filter((r) => r.ok).length, total: d.results.length }),
    onSuccess: (_d, c) => setDetail(c.id),
  });
  const copy = useApiMutation((c: Channel) => call(client.POST('/api/channel/copy/{id}', { params: { path: { id: c.id } } })), {
    invalidate: ['channels'],
    notifyError: true,
    success: (d) => t('channels.copied', { name: d.name }),
  });
  const tagStatus = useApiMutation(
    (v: { tag: string; enabled: boolean }) =>
      call(client.POST(v.enabled ? '/api/channel/tag/enabled' : '/api/channel/tag/disabled', { body: { tag: v.tag } })),
    { invalidate: ['channels', 'channel'], notifyError: true, success: t('common.saved') },
  );
  const purge = useApiMutation(() => call(client.DELETE('/api/channel/disabled')), {
    invalidate: ['channels'],
    notifyError: true,
    success: (n) => t('channels.purged', { count: n }),
  });

  const test = useApiMutation((c: Channel) => call(client.POST('/api/channel/{id}/test', { params: { path: { id: c.id } }, body: {} })), {
    invalidate: ['channels'],
    notifyError: true,
    success: (d) => t('channels.testOk', { ms: (d as { time_ms?: number }).time_ms ?? '?' }),
  });
  const setStatus = useApiMutation(
    (v: { id: number; status: string }) =>
      call(client.PUT('/api/channel/{id}', { params: { path: { id: v.id } }, body: { status: v.status } })),
    {
      invalidate: ['channels', 'channel'],
      notifyError: true,
      success: t('common.saved'),
    },
  );
  const remove = useApiMutation((id: number) => call(client.DELETE('/api/channel/{id}', { params: { path: { id } } })), {
    invalidate: ['channels'],
    notifyError: true,
    success: t('channels.deleted'),
  });

  const columns: Column<Channel>[] = [
    { key: 'id', header: 'ID', render: (c) => c.id },
    {
      key: 'name',
      header: t('channels.name'),
      render: (c) => (
        <Text fw={500} size="sm">
          {c.name}
        </Text>
      ),
    },
    { key: 'type', header: t('channels.type'), render: (c) => c.type_name },
    { key: 'status', header: t('channels.status'), render: (c) => <StatusBadge status={c.status ?? 'enabled'} reason={c.status_reason} /> },
    {
      key: 'keys',
      header: t('channels.keys'),
      render: (c) => {
        const bad = (c.keys ?? []).filter((k) => k.status !== 'enabled').length;
        return (
          <Group gap={4}>
            <Badge variant="outline" color="gray">
              {c.key_count}
            </Badge>
            {bad > 0 && (
              <Tooltip label={t('channels.keysOff', { count: bad })}>
                <Badge color="orange" variant="light" tabIndex={0}>
                  {t('channels.keysOffShort', { count: bad })}
                </Badge>
              </Tooltip>
            )}
          </Group>
        );
      },
    },
    {
      key: 'models',
      header: t('channels.models'),
      render: (c) => (
        <Text size="sm" lineClamp={1} maw={220}>
          {(c.models ?? []).join(', ')}
        </Text>
      ),
    },
    { key: 'groups', header: t('channels.groups'), render: (c) => (c.groups ?? []).join(', ') },
    {
      key: 'tag',
      header: t('channels.tag'),
      render: (c) =>
        c.tag ? (
          <Badge variant="light" tt="none">
            {c.tag}
          </Badge>
        ) : (
          ''
        ),
    },
    {
      key: 'balance',
      header: t('channels.balance'),
      numeric: true,
      render: (c) => (
        <Tooltip label={fmtTime(c.balance_updated_at)} disabled={!c.balance_updated_at}>
          <span>{c.balance == null ? '—' : c.balance.toFixed(2)}</span>
        </Tooltip>
      ),
    },
    { key: 'priority', header: t('channels.priority'), numeric: true, render: (c) => c.priority },
    { key: 'weight', header: t('channels.weight'), numeric: true, render: (c) => c.weight },
    {
      key: 'resp',
      header: t('channels.responseTime'),
      numeric: true,
      render: (c) => (
        <Tooltip label={fmtTime(c.tested_at)} disabled={!c.tested_at}>
          <span>{fmtMs(c.response_time_ms)}</span>
        </Tooltip>
      ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (c) => (
        <Group gap={4} wrap="nowrap" onClick={(e) => e.stopPropagation()}>
          <Tooltip label={t('channels.test')}>
            <ActionIcon
              variant="subtle"
              aria-label={t('channels.testNamed', { name: c.name })}
              loading={test.isPending && test.variables?.id === c.id}
              onClick={() => test.mutate(c)}
            >
              <IconPlayerPlay size={16} />
            </ActionIcon>
          </Tooltip>
          <Menu withinPortal position="bottom-end">
            <Menu.Target>
              <ActionIcon variant="subtle" aria-label={t('channels.moreNamed', { name: c.name })}>
                <IconDots size={16} />
              </ActionIcon>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => setDetail(c.id)}>{t('common.details')}</Menu.Item>
              <Menu.Item onClick={() => testModels.mutate(c)}>{t('channels.testModels')}</Menu.Item>
              {c.type_name === 'openai' && <Menu.Item onClick={() => balance.mutate(c)}>{t('channels.updateBalance')}</Menu.Item>}
              {['openai', 'gemini', 'anthropic'].includes(c.type_name ?? '') && (
                <Menu.Item onClick={() => setSyncing(c)}>{t('channels.syncModels')}</Menu.Item>
              )}
              <Menu.Item onClick={() => copy.mutate(c)}>{t('channels.copy')}</Menu.Item>
              {c.tag && (
                <>
                  <Menu.Item onClick={() => setTagEditing(c.tag!)}>{t('channels.editTag', { tag: c.tag })}</Menu.Item>
                  <Menu.Item onClick={() => tagStatus.mutate({ tag: c.tag!, enabled: true })}>
                    {t('channels.enableTag', { tag: c.tag })}
                  </Menu.Item>
                  <Menu.Item onClick={() => tagStatus.mutate({ tag: c.tag!, enabled: false })}>
                    {t('channels.disableTag', { tag: c.tag })}
                  </Menu.Item>
                </>
              )}
              <Menu.Item
                onClick={() => {
                  setEditing(c);
                  form.open();
                }}
              >
                {t('common.edit')}
              </Menu.Item>
              {c.status === 'enabled' ? (
                <Menu.Item onClick={() => setStatus.mutate({ id: c.id, status: 'disabled' })}>{t('common.disable')}</Menu.Item>
              ) : (
                <Menu.Item onClick={() => setStatus.mutate({ id: c.id, status: 'enabled' })}>{t('common.enable')}</Menu.Item>
              )}
              <Menu.Divider />
              <Menu.Item color="red" onClick={() => setDeleting(c)}>
                {t('common.delete')}
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={t('nav.channels')}>
        <Button variant="default" color="red" onClick={() => setPurging(true)}>
          {t('channels.deleteDisabled')}
        </Button>
        <Button variant="default" leftSection={<IconPlayerPlay size={16} />} onClick={testAllModal.open}>
          {t('channels.testAll')}
        </Button>
        <Button
          leftSection={<IconPlus size={16} />}
          onClick={() => {
            setEditing(null);
            form.open();
          }}
        >
          {t('channels.create')}
        </Button>
      </PageHeader>
      <FilterBar form={filters} onApply={list.setFilters} label={t('channels.filters')}>
        <TextInput label={t('channels.keyword')} {...filters.getInputProps('keyword')} />
        <FilterSelect
          label={t('channels.type')}
          data={CHANNEL_TYPES.map((v) => ({ value: v, label: t(`channels.types.${v}`) }))}
          {...filters.getInputProps('type')}
        />
        <FilterSelect
          label={t('channels.status')}
          data={['enabled', 'disabled', 'auto_disabled'].map((v) => ({ value: v, label: t(`status.${v}` as 'status.enabled') }))}
          {...filters.getInputProps('status')}
        />
        <TextInput label={t('channels.group')} {...filters.getInputProps('group')} />
        <TextInput label={t('channels.tag')} {...filters.getInputProps('tag')} />
      </FilterBar>
      <DataTable label={t('nav.channels')} columns={columns} rowKey={(c) => c.id} onRowClick={(c) => setDetail(c.id)} {...list.table} />
      {formOpen && <ChannelForm channel={editing} onClose={form.close} />}
      <ChannelDrawer id={detail} onClose={() => setDetail(null)} />
      {testAll && <TestAllModal onClose={testAllModal.close} />}
      {tagEditing !== null && <TagEditModal tag={tagEditing} onClose={() => setTagEditing(null)} />}
      {syncing && <ModelSyncModal channel={syncing} onClose={() => setSyncing(null)} />}
      <ConfirmDialog
        opened={purging}
        onClose={() => setPurging(false)}
        title={t('channels.deleteDisabled')}
        confirmLabel={t('common.delete')}
        message={t('channels.confirmDeleteDisabled')}
        onConfirm={() => purge.mutate(undefined)}
      />
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('channels.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('channels.confirmDelete', { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      />
    </>
  );
}
