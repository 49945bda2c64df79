/**
 * Tasks, everyone's (admin) or the user's own: filters, server paging, and a detail drawer — for admins
 * with the upstream trail, the ledger movements and, for flagged tasks, the resolutions refund, fail,
 * charge and poll; for everyone with the task's completion callback and its delivery attempts.
 */
import { Alert, Badge, Button, Code, Drawer, Group, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { quotaPerUsd, useSelf } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { DetailList } from '../../components/DetailList';
import { ErrorState } from '../../components/ErrorState';
import { DateTimeField } from '../../components/DateTimeField';
import { FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtQuota, fmtTime, fromLocalInput } from '../../lib/format';
import { CallbackPanel } from './CallbackPanel';

type Scope = 'own' | 'all';
type AnyTask = Schemas['AdminTask'] | Schemas['OwnTask'];
type Filters = {
  status: string;
  plugin: string;
  model: string;
  task_id: string;
  username: string;
  channel_id: string;
  flagged: string;
  billing_status: string;
  start: string;
  end: string;
};
const EMPTY: Filters = {
  status: '',
  plugin: '',
  model: '',
  task_id: '',
  username: '',
  channel_id: '',
  flagged: '',
  billing_status: '',
  start: '',
  end: '',
};
const STATUSES = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'];
const BILLING = ['none', 'reserving', 'reserved', 'settled', 'refunded'];

function Resolve({ task }: { task: Schemas['AdminTaskDetail'] }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { action: 'refund', upstream_task_id: '', status: 'SUCCESS', reason: '' },
    validate: { upstream_task_id: (x, all) => (all.action === 'poll' && !x.trim() ? t('tasks.upstreamRequired') : null) },
  });
  const resolve = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.POST('/api/task/{id}/resolve', {
          params: { path: { id: task.task_id } },
          body: {
            action: x.action as 'refund',
            reason: x.reason.trim() || undefined,
            ...(x.action === 'poll' || (x.action === 'charge' && x.upstream_task_id.trim())
              ? { upstream_task_id: x.upstream_task_id.trim() }
              : {}),
            ...(x.action === 'charge' ? { status: x.status as 'SUCCESS' } : {}),
          },
        }),
      ),
    { invalidate: ['tasks', 'task'], success: t('tasks.resolved') },
  );
  const a = form.values.action;
  return (
    <form onSubmit={form.onSubmit((x) => resolve.mutate(x))} noValidate aria-label={t('tasks.resolveTitle')}>
      <Stack gap="xs">
        <Title order={3} size="h5">
          {t('tasks.resolveTitle')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('tasks.resolveHint')}
        </Text>
        {resolve.error && (
          <Alert color="red" role="alert">
            {resolve.error.message}
          </Alert>
        )}
        <Select
          label={t('tasks.action')}
          allowDeselect={false}
          data={['refund', 'fail', 'charge', 'poll'].map((x) => ({ value: x, label: t(`tasks.actions.${x}` as 'tasks.actions.refund') }))}
          {...form.getInputProps('action')}
        />
        {(a === 'poll' || a === 'charge') && (
          <TextInput label={t('tasks.upstreamId')} required={a === 'poll'} {...form.getInputProps('upstream_task_id')} />
        )}
        {a === 'charge' && (
          <Select
            label={t('tasks.endStatus')}
            allowDeselect={false}
            data={['SUCCESS', 'FAILURE'].map((x) => ({ value: x, label: t(`status.${x}` as 'status.SUCCESS') }))}
            {...form.getInputProps('status')}
          />
        )}
        <Textarea label={t('tasks.reason')} autosize minRows={1} {...form.getInputProps('reason')} />
        <Group justify="flex-end">
          <Button type="submit" loading={resolve.isPending}>
            {t('tasks.resolve')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TaskDrawer({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const perUsd = quotaPerUsd(useSelf().data);
  const q = useQuery({
    queryKey: ['task', id],
    enabled: !!id,
    queryFn: () => call(client.GET('/api/task/{id}', { params: { path: { id: id! } } })),
  });
  const d = q.data;
  return (
    <Drawer
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={!!id}
      onClose={onClose}
      position="right"
      size="lg"
      title={id ?? ''}
    >
      {q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        d && (
          <Stack>
            {d.flagged && (
              <Alert color="orange" title={t('tasks.flagged')}>
                {d.flag_reason}
              </Alert>
            )}
            <DetailList
              items={[
                [t('tasks.status'), <StatusBadge key="s" status={d.status} reason={d.fail_reason} />],
                [t('tasks.progress'), d.progress],
                [t('tasks.plugin'), `${d.plugin}@${d.plugin_version}`],
                [t('tasks.action'), d.action],
                [t('tasks.model'), `${d.model} → ${d.upstream_model}`],
                [t('tasks.user'), `${d.username ?? '—'} (#${d.user_id})`],
                [t('tasks.channel'), d.channel_id],
                [t('tasks.upstreamId'), d.upstream_task_id ? <Code key="u">{d.upstream_task_id}</Code> : '—'],
                [t('tasks.pollFailures'), d.poll_failures],
                [t('tasks.nextPoll'), fmtTime(d.next_poll_at)],
                [t('tasks.billing'), <StatusBadge key="b" status={d.billing_status} />],
                [t('tasks.reserved'), fmtQuota(d.quota_reserved, perUsd)],
                [t('tasks.final'), fmtQuota(d.quota_final, perUsd)],
                [t('tasks.created'), fmtTime(d.created_at)],
                [t('tasks.submitted'), fmtTime(d.submitted_at)],
                [t('tasks.started'), fmtTime(d.started_at)],
                [t('tasks.finished'), fmtTime(d.finished_at)],
                [t('tasks.failReason'), d.fail_reason],
              ]}
            />
            <Title order={3} size="h5">
              {t('tasks.ledger')}
            </Title>
            <Group gap="xs">
              {Object.entries(d.ledger ?? {}).map(([k, v]) => (
                <Badge key={k} variant="outline">
                  {k}: {fmtQuota(v, perUsd)}
                </Badge>
              ))}
              {Object.keys(d.ledger ?? {}).length === 0 && (
                <Text size="sm" c="dimmed">
                  —
                </Text>
              )}
            </Group>
            <CallbackPanel callback={d.callback} />
            {d.flagged && <Resolve task={d} />}
          </Stack>
        )
      )}
    </Drawer>
  );
}

/** One of the user's own tasks: its state, cost and callback deliveries. */
function OwnTaskDrawer({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const perUsd = quotaPerUsd(useSelf().data);
  const q = useQuery({
    queryKey: ['own-task', id],
    enabled: !!id,
    queryFn: () => call(client.GET('/api/task/self/{id}', { params: { path: { id: id! } } })),
  });
  const d = q.data;
  return (
    <Drawer
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={!!id}
      onClose={onClose}
      position="right"
      size="lg"
      title={id ?? ''}
    >
      {q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        d && (
          <Stack>
            <DetailList
              items={[
                [t('tasks.status'), <StatusBadge key="s" status={d.status} reason={d.fail_reason} />],
                [t('tasks.progress'), d.progress],
                [t('tasks.plugin'), d.plugin],
                [t('tasks.model'), d.model],
                [t('tasks.billing'), <StatusBadge key="b" status={d.billing_status} />],
                [t('tasks.cost'), fmtQuota(d.quota_final ?? d.quota_reserved, perUsd)],
                [t('tasks.created'), fmtTime(d.created_at)],
                [t('tasks.started'), fmtTime(d.started_at)],
                [t('tasks.finished'), fmtTime(d.finished_at)],
                [t('tasks.failReason'), d.fail_reason],
              ]}
            />
            <CallbackPanel callback={d.callback} />
          </Stack>
        )
      )}
    </Drawer>
  );
}

export function TasksView({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const perUsd = quotaPerUsd(useSelf().data);
  const list = usePagedQuery<AnyTask, Filters>(scope === 'all' ? 'tasks' : 'own-tasks', EMPTY, (f) => {
    const common = compact({
      status: f.status,
      plugin: f.plugin.trim(),
      model: f.model.trim(),
      task_id: f.task_id.trim(),
      start: fromLocalInput(f.start),
      end: fromLocalInput(f.end),
      page: f.page,
      page_size: f.page_size,
    });
    if (scope === 'own') return call(client.GET('/api/task/self', { params: { query: common } }));
    return call(
      client.GET('/api/task', {
        params: {
          query: {
            ...common,
            ...compact({
              username: f.username.trim(),
              channel_id: f.channel_id ? Number(f.channel_id) : undefined,
              flagged: f.flagged ? f.flagged === 'true' : undefined,
              billing_status: f.billing_status,
            }),
          },
        },
      }),
    );
  });
  const filters = useForm<Filters>({ initialValues: EMPTY });
  const [detail, setDetail] = useState<string | null>(null);
  const columns: Column<AnyTask>[] = [
    { key: 'id', header: t('tasks.id'), render: (x) => <Code>{x.task_id}</Code> },
    {
      key: 'status',
      header: t('tasks.status'),
      render: (x) => (
        <Group gap={4}>
          <StatusBadge status={x.status} reason={x.fail_reason} />
          {x.flagged && (
            <Badge color="orange" variant="dot">
              {t('tasks.flagged')}
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'progress', header: t('tasks.progress'), render: (x) => x.progress || '—' },
    { key: 'plugin', header: t('tasks.plugin'), render: (x) => x.plugin },
    { key: 'model', header: t('tasks.model'), render: (x) => x.model },
    ...(scope === 'all'
      ? [{ key: 'user', header: t('tasks.user'), render: (x: AnyTask) => (x as Schemas['AdminTask']).username ?? '—' }]
      : []),
    { key: 'billing', header: t('tasks.billing'), render: (x) => <StatusBadge status={x.billing_status} /> },
    { key: 'cost', header: t('tasks.cost'), numeric: true, render: (x) => fmtQuota(x.quota_final ?? x.quota_reserved, perUsd) },
    { key: 'created', header: t('tasks.created'), render: (x) => fmtTime(x.created_at) },
  ];
  return (
    <>
      <PageHeader title={scope === 'all' ? t('nav.tasks') : t('nav.myTasks')} />
      <FilterBar form={filters} onApply={list.setFilters} label={t('tasks.filters')}>
        <FilterSelect
          label={t('tasks.status')}
          w={150}
          data={STATUSES.map((x) => ({ value: x, label: t(`status.${x}` as 'status.SUCCESS') }))}
          {...filters.getInputProps('status')}
        />
        <TextInput label={t('tasks.plugin')} w={130} {...filters.getInputProps('plugin')} />
        <TextInput label={t('tasks.model')} w={140} {...filters.getInputProps('model')} />
        <TextInput label={t('tasks.id')} w={170} {...filters.getInputProps('task_id')} />
        {scope === 'all' && <TextInput label={t('tasks.user')} w={130} {...filters.getInputProps('username')} />}
        {scope === 'all' && <TextInput label={t('tasks.channelId')} w={100} inputMode="numeric" {...filters.getInputProps('channel_id')} />}
        {scope === 'all' && (
          <FilterSelect
            label={t('tasks.flagged')}
            w={120}
            data={[
              { value: 'true', label: t('common.yes') },
              { value: 'false', label: t('common.no') },
            ]}
            {...filters.getInputProps('flagged')}
          />
        )}
        {scope === 'all' && (
          <FilterSelect
            label={t('tasks.billing')}
            w={130}
            data={BILLING.map((x) => ({ value: x, label: t(`status.${x}` as 'status.none') }))}
            {...filters.getInputProps('billing_status')}
          />
        )}
        <DateTimeField label={t('logs.from')} {...filters.getInputProps('start')} />
        <DateTimeField label={t('logs.to')} {...filters.getInputProps('end')} />
      </FilterBar>
      <DataTable
        label={t('tasks.tableLabel')}
        columns={columns}
        rowKey={(x) => x.task_id}
        onRowClick={(x) => setDetail(x.task_id)}
        {...list.table}
      />
      {scope === 'all' ? (
        <TaskDrawer id={detail} onClose={() => setDetail(null)} />
      ) : (
        <OwnTaskDrawer id={detail} onClose={() => setDetail(null)} />
      )}
    </>
  );
}
