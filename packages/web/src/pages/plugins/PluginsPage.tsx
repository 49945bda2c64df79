/**
 * Plugins (root): installed task plugins with their runtime state (enable/disable, details, versions,
 * dry run), upload by drag and drop, market installs, and the runtime's status.
 */
import { Alert, Button, Card, Code, Select, Stack, Switch, Table, Tabs, Text } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call, client, type Schemas } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { DetailList } from '../../components/DetailList';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';
import { PluginDrawer } from './PluginDrawer';
import { UploadPlugin } from './UploadPlugin';

type Plugin = Schemas['PluginSummary'];
const nameOf = (p: Plugin) => {
  const n = (p.meta as { name?: unknown } | null)?.name;
  return typeof n === 'string' ? n : n && typeof n === 'object' ? String((n as Record<string, unknown>).en ?? p.key) : p.key;
};

function Installed() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['plugins'], queryFn: () => call(client.GET('/api/plugin/task')) });
  const [detail, setDetail] = useState<string | null>(null);
  const [cascade, setCascade] = useState<{ key: string; message: string } | null>(null);
  const setStatus = useApiMutation(
    (v: { key: string; enabled: boolean; cascade?: boolean }) =>
      call(
        client.POST('/api/plugin/task/{key}/status', {
          params: { path: { key: v.key }, query: v.cascade ? { cascade: 'true', force: 'true' } : {} },
          body: { enabled: v.enabled },
        }),
      ),
    {
      invalidate: ['plugins', 'plugin'],
      onSuccess: () => setCascade(null),
    },
  );
  const toggle = (key: string, enabled: boolean) =>
    setStatus.mutate(
      { key, enabled },
      {
        onError: (e) => {
          if (e instanceof ApiError && e.status === 409 && !enabled) setCascade({ key, message: e.message });
        },
      },
    );
  const columns: Column<Plugin>[] = [
    {
      key: 'key',
      header: t('plugins.key'),
      render: (p) => (
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            {nameOf(p)}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {p.key}
          </Text>
        </Stack>
      ),
    },
    { key: 'version', header: t('plugins.activeVersion'), render: (p) => p.active_version ?? '—' },
    { key: 'serving', header: t('plugins.serving'), render: (p) => p.serving_version ?? '—' },
    { key: 'runtime', header: t('plugins.runtime'), render: (p) => <StatusBadge status={p.runtime_status} reason={p.runtime_error} /> },
    { key: 'channels', header: t('plugins.channels'), numeric: true, render: (p) => p.channel_count ?? 0 },
    { key: 'inflight', header: t('plugins.inFlight'), numeric: true, render: (p) => p.in_flight_count ?? 0 },
    {
      key: 'enabled',
      header: t('common.enabled'),
      render: (p) => (
        <span onClick={(e) => e.stopPropagation()}>
          <Switch
            checked={p.enabled}
            aria-label={t('plugins.enabledNamed', { key: p.key })}
            onChange={(e) => toggle(p.key, e.currentTarget.checked)}
          />
        </span>
      ),
    },
  ];
  return (
    <>
      {setStatus.error && !cascade && (
        <Alert color="red" role="alert" mb="sm">
          {setStatus.error.message}
        </Alert>
      )}
      <DataTable
        label={t('plugins.installed')}
        columns={columns}
        rowKey={(p) => p.key}
        rows={q.data}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
        onRowClick={(p) => setDetail(p.key)}
        empty={t('plugins.none')}
      />
      <PluginDrawer pluginKey={detail} onClose={() => setDetail(null)} />
      <ConfirmDialog
        opened={!!cascade}
        onClose={() => setCascade(null)}
        title={t('plugins.inUseTitle')}
        confirmLabel={t('plugins.disableAnyway')}
        message={
          <>
            {cascade?.message}
            <br />
            {t('plugins.cascadeHint')}
          </>
        }
        onConfirm={() => cascade && setStatus.mutate({ key: cascade.key, enabled: false, cascade: true })}
      />
    </>
  );
}

function Market() {
  const { t } = useTranslation();
  const sources = useQuery({ queryKey: ['market-sources'], queryFn: () => call(client.GET('/api/plugin/task/marketplace/sources')) });
  const [source, setSource] = useState<string | null>(null);
  const chosen = source ?? sources.data?.[0]?.name ?? null;
  const index = useQuery({
    queryKey: ['market-index', chosen],
    enabled: !!chosen,
    retry: false,
    queryFn: () => call(client.GET('/api/plugin/task/marketplace/index', { params: { query: { source: chosen! } } })),
  });
  const install = useApiMutation(
    (v: { key: string; version?: string }) =>
      call(client.POST('/api/plugin/task/marketplace/install', { body: { source: chosen!, key: v.key, version: v.version } })),
    { invalidate: ['plugins'], notifyError: true, success: t('plugins.installedOk') },
  );
  return (
    <Stack>
      {sources.error && <ErrorState error={sources.error} onRetry={() => void sources.refetch()} />}
      <Select
        label={t('plugins.marketSource')}
        w={320}
        allowDeselect={false}
        value={chosen}
        onChange={setSource}
        data={sources.data?.map((s) => ({ value: s.name, label: `${s.name} — ${s.index_url}` })) ?? []}
      />
      {index.error ? (
        <ErrorState error={index.error} onRetry={() => void index.refetch()} />
      ) : index.isFetching ? (
        <Text c="dimmed">{t('common.loading')}…</Text>
      ) : (
        index.data && (
          <Table aria-label={t('plugins.market')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('plugins.key')}</Table.Th>
                <Table.Th scope="col">{t('plugins.latest')}</Table.Th>
                <Table.Th scope="col">{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {index.data.index.plugins.map((p) => (
                <Table.Tr key={p.key}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {p.name ?? p.key}
                    </Text>
                    <Text size="xs" c="dimmed" ff="monospace">
                      {p.key}
                    </Text>
                  </Table.Td>
                  <Table.Td>{p.latest ?? p.versions[0]?.version}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="light"
                      loading={install.isPending && install.variables?.key === p.key}
                      onClick={() => install.mutate({ key: p.key })}
                      aria-label={t('plugins.installNamed', { key: p.key })}
                    >
                      {t('plugins.install')}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      )}
    </Stack>
  );
}

function Runtime() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['plugin-runtime'], queryFn: () => call(client.GET('/api/plugin/task/runtime/status')) });
  if (q.error) return <ErrorState error={q.error} onRetry={() => void q.refetch()} />;
  const s = q.data;
  if (!s) return <Text c="dimmed">{t('common.loading')}…</Text>;
  const errors = Object.entries(s.plugin_errors ?? {});
  return (
    <Stack>
      <Card withBorder>
        <DetailList
          items={[
            [t('plugins.generation'), s.current_generation],
            [t('plugins.published'), s.generation_published_at ? fmtTime(s.generation_published_at * 1000) : '—'],
            [t('plugins.dbRevision'), s.database_revision ?? '—'],
            ...(s.database_error ? [[t('plugins.dbError'), s.database_error] as [string, string]] : []),
            [
              t('plugins.lastRebuild'),
              <Code key="r" block>
                {JSON.stringify(s.last_rebuild, null, 2)}
              </Code>,
            ],
          ]}
        />
      </Card>
      {errors.length > 0 && (
        <Alert color="red" title={t('plugins.loadErrors')}>
          {errors.map(([k, v]) => (
            <Text key={k} size="sm">
              <b>{k}</b>: {v}
            </Text>
          ))}
        </Alert>
      )}
      <Table aria-label={t('plugins.pools')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('plugins.key')}</Table.Th>
            <Table.Th scope="col">{t('plugins.version')}</Table.Th>
            <Table.Th scope="col">{t('plugins.pool')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {Object.entries(s.plugins ?? {}).map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Td>{k}</Table.Td>
              <Table.Td>{String((v as { version?: string }).version ?? '')}</Table.Td>
              <Table.Td>
                <Code>{JSON.stringify((v as { pool?: unknown }).pool ?? {})}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export default function PluginsPage() {
  const { t } = useTranslation();
  const [upload, setUpload] = useState(false);
  return (
    <>
      <PageHeader title={t('nav.plugins')}>
        <Button leftSection={<IconUpload size={16} />} onClick={() => setUpload(true)}>
          {t('plugins.upload')}
        </Button>
      </PageHeader>
      <Tabs defaultValue="installed" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="installed">{t('plugins.installed')}</Tabs.Tab>
          <Tabs.Tab value="market">{t('plugins.market')}</Tabs.Tab>
          <Tabs.Tab value="runtime">{t('plugins.runtimeStatus')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="installed">
          <Installed />
        </Tabs.Panel>
        <Tabs.Panel value="market">
          <Market />
        </Tabs.Panel>
        <Tabs.Panel value="runtime">
          <Runtime />
        </Tabs.Panel>
      </Tabs>
      {upload && <UploadPlugin onClose={() => setUpload(false)} />}
    </>
  );
}
