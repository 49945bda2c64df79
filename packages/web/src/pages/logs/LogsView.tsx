/**
 * Logs, everyone's (admin) or the user's own: filters (user, key, model, channel, type, request id,
 * time; users, channels and models picked from the API), server paging with totals — what calls spent apart
 * from top-ups and adjustments —, a detail drawer, and the CSV export of the same filter.
 */
import { Button, Code, Drawer, Group, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDownload } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, urlWithQuery, type Schemas } from '../../api/client';
import { quotaPerUsd, useSelf } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { DetailList } from '../../components/DetailList';
import { DateTimeField } from '../../components/DateTimeField';
import { FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { ChannelPicker, ModelPicker, UserPicker } from '../../components/pickers';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { compact, usePagedQuery, type PageData } from '../../components/usePagedQuery';
import { fmtInt, fmtMs, fmtQuota, fmtTime, fromLocalInput } from '../../lib/format';

type Log = Schemas['Log'];
type Scope = 'own' | 'all';
type Filters = {
  type: string;
  user_id: string;
  key_name: string;
  model: string;
  channel_id: string;
  request_id: string;
  start: string;
  end: string;
};
type Totals = Schemas['LogTotals'];
const EMPTY: Filters = { type: '', user_id: '', key_name: '', model: '', channel_id: '', request_id: '', start: '', end: '' };

function toQuery(f: Filters, scope: Scope) {
  return compact({
    type: f.type as Log['type'],
    key_name: f.key_name.trim(),
    model: f.model.trim(),
    request_id: f.request_id.trim(),
    start: fromLocalInput(f.start),
    end: fromLocalInput(f.end),
    ...(scope === 'all'
      ? { user_id: f.user_id ? Number(f.user_id) : undefined, channel_id: f.channel_id ? Number(f.channel_id) : undefined }
      : {}),
  });
}

/** The channel that served a call, by name; its id on hover. */
function ChannelName({ log }: { log: Log }) {
  if (log.channel_id == null) return '—';
  return (
    <Tooltip label={`#${log.channel_id}`} withArrow>
      <Text size="sm" span tabIndex={0}>
        {log.channel_name ?? `#${log.channel_id}`}
      </Text>
    </Tooltip>
  );
}

export function LogsView({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const self = useSelf();
  const perUsd = quotaPerUsd(self.data);
  const list = usePagedQuery<Log, Filters, PageData<Log> & { totals: Totals; totals_capped?: boolean }>(
    scope === 'all' ? 'logs' : 'own-logs',
    EMPTY,
    (q) => {
      const query = { ...toQuery(q, scope), page: q.page, page_size: q.page_size } as never;
      return scope === 'all'
        ? call(client.GET('/api/log', { params: { query } }))
        : call(client.GET('/api/log/self', { params: { query } }));
    },
  );
  const filters = useForm<Filters>({
    initialValues: EMPTY,
    validate: { end: (e, all) => (e && all.start && e < all.start ? t('logs.endBeforeStart') : null) },
  });
  const [detail, setDetail] = useState<Log | null>(null);
  const exportHref = urlWithQuery(scope === 'all' ? '/api/log/export' : '/api/log/self/export', toQuery(list.filters, scope));
  const totals = list.query.data?.totals;

  const columns: Column<Log>[] = [
    { key: 'time', header: t('logs.time'), render: (l) => fmtTime(l.created_at) },
    { key: 'type', header: t('logs.type'), render: (l) => <StatusBadge status={l.type} /> },
    ...(scope === 'all' ? [{ key: 'user', header: t('logs.user'), render: (l: Log) => l.username ?? '—' }] : []),
    { key: 'key', header: t('logs.key'), render: (l) => l.key_name ?? '—' },
    { key: 'model', header: t('logs.model'), render: (l) => l.model ?? '—' },
    ...(scope === 'all' ? [{ key: 'channel', header: t('logs.channel'), render: (l: Log) => <ChannelName log={l} /> }] : []),
    {
      key: 'status',
      header: t('logs.status'),
      numeric: true,
      render: (l) => (
        <Text size="sm" c={l.status_code && l.status_code >= 400 ? 'red' : undefined}>
          {l.status_code ?? '—'}
        </Text>
      ),
    },
    {
      key: 'tokens',
      header: t('logs.tokens'),
      numeric: true,
      render: (l) => `${fmtInt(l.prompt_tokens)} / ${fmtInt(l.completion_tokens)}`,
    },
    { key: 'cost', header: t('logs.cost'), numeric: true, render: (l) => fmtQuota(l.quota, perUsd) },
    { key: 'latency', header: t('logs.latency'), numeric: true, render: (l) => fmtMs(l.latency_ms) },
  ];
  return (
    <>
      <PageHeader title={scope === 'all' ? t('nav.logs') : t('nav.myLogs')}>
        <Button component="a" href={exportHref} download variant="default" leftSection={<IconDownload size={16} />}>
          {t('logs.export')}
        </Button>
      </PageHeader>
      <FilterBar form={filters} onApply={list.setFilters} label={t('logs.filters')}>
        <FilterSelect
          label={t('logs.type')}
          w={130}
          data={['consume', 'error', 'task', 'system', 'topup', 'mcp'].map((x) => ({
            value: x,
            label: t(`status.${x}` as 'status.consume'),
          }))}
          {...filters.getInputProps('type')}
        />
        {scope === 'all' && <UserPicker label={t('logs.user')} w={180} {...filters.getInputProps('user_id')} />}
        <TextInput label={t('logs.key')} w={140} {...filters.getInputProps('key_name')} />
        {scope === 'all' ? (
          <ModelPicker label={t('logs.model')} w={180} {...filters.getInputProps('model')} />
        ) : (
          <TextInput label={t('logs.model')} w={160} {...filters.getInputProps('model')} />
        )}
        {scope === 'all' && <ChannelPicker label={t('logs.channel')} w={180} {...filters.getInputProps('channel_id')} />}
        <TextInput label={t('logs.requestId')} w={180} {...filters.getInputProps('request_id')} />
        <DateTimeField label={t('logs.from')} {...filters.getInputProps('start')} />
        <DateTimeField label={t('logs.to')} {...filters.getInputProps('end')} />
      </FilterBar>
      {totals && (
        <Group gap="lg" mb="xs" aria-live="polite" aria-label={t('logs.totals')} role="group">
          <Text size="sm">
            {list.query.data?.totals_capped
              ? t('logs.totalsCapped', { count: totals.count })
              : t('logs.totalCount', { count: totals.count })}
          </Text>
          <Text size="sm">{t('logs.totalCalls', { count: totals.calls })}</Text>
          <Text size="sm">
            {t('logs.totalTokens', { prompt: fmtInt(totals.prompt_tokens), completion: fmtInt(totals.completion_tokens) })}
          </Text>
          <Text size="sm">{t('logs.totalCost', { cost: fmtQuota(totals.quota, perUsd) })}</Text>
          {totals.movements > 0 && (
            <Text size="sm">{t('logs.totalMoved', { count: totals.movements, amount: fmtQuota(totals.moved_quota, perUsd) })}</Text>
          )}
        </Group>
      )}
      <DataTable label={t('logs.tableLabel')} columns={columns} rowKey={(l) => l.id} onRowClick={setDetail} {...list.table} />
      <Drawer
        closeButtonProps={{ 'aria-label': t('common.close') }}
        opened={!!detail}
        onClose={() => setDetail(null)}
        position="right"
        size="lg"
        title={t('logs.detail')}
      >
        {detail && (
          <DetailList
            items={[
              [t('logs.time'), fmtTime(detail.created_at)],
              [t('logs.type'), <StatusBadge key="t" status={detail.type} />],
              [t('logs.requestId'), <Code key="r">{detail.request_id}</Code>],
              [t('logs.user'), detail.username],
              [t('logs.key'), detail.key_name],
              [t('logs.group'), detail.group_name],
              [t('logs.model'), detail.model],
              ...(scope === 'all' ? [[t('logs.channel'), <ChannelName key="ch" log={detail} />] as [string, ReactNode]] : []),
              [t('logs.endpoint'), detail.endpoint],
              [t('logs.status'), detail.status_code],
              [t('logs.promptTokens'), fmtInt(detail.prompt_tokens)],
              [t('logs.completionTokens'), fmtInt(detail.completion_tokens)],
              [t('logs.cachedTokens'), fmtInt(detail.cached_tokens)],
              [t('logs.cacheWriteTokens'), fmtInt(detail.cache_write_tokens)],
              [t('logs.cacheWriteCost'), fmtQuota(detail.cache_write_quota, perUsd)],
              [t('logs.cacheSaving'), fmtQuota(detail.cache_saving_quota, perUsd)],
              [t('logs.cost'), fmtQuota(detail.quota, perUsd)],
              [t('logs.latency'), fmtMs(detail.latency_ms)],
              [t('logs.firstByte'), fmtMs(detail.first_byte_ms)],
              [t('logs.stream'), detail.is_stream ? t('common.yes') : t('common.no')],
              [t('logs.attempts'), detail.attempts],
              [
                t('logs.content'),
                detail.content ? (
                  <Code key="c" block>
                    {detail.content}
                  </Code>
                ) : (
                  '—'
                ),
              ],
            ]}
          />
        )}
      </Drawer>
    </>
  );
}
