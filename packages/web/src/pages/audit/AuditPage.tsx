/**
 * The audit log (admins): every administrative write with its actor, time, action, target and the
 * fields it changed (secrets shown as [redacted] by the gateway), filtered by actor, target type,
 * action and time (GET /api/audit).
 */
import { Code, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTimeField, FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { PageHeader } from '../../components/PageHeader';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtTime, fromLocalInput } from '../../lib/format';

type Entry = Schemas['AuditEntry'];
type Filters = { actor: string; target_type: string; action: string; from: string; to: string };
const TARGET_TYPES = [
  'user',
  'key',
  'channel',
  'price',
  'group_ratio',
  'option',
  'plugin',
  'marketplace',
  'redemption',
  'task',
  'sso_provider',
];

const show = (v: unknown): string => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function Diff({ diff }: { diff: Entry['diff'] }) {
  const rows = Object.entries(diff ?? {});
  if (!rows.length)
    return (
      <Text size="xs" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={2}>
      {rows.map(([field, c]) => (
        <Text key={field} size="xs" style={{ wordBreak: 'break-word' }}>
          <Code>{field}</Code> {show(c?.before)} → {show(c?.after)}
        </Text>
      ))}
    </Stack>
  );
}

export default function AuditPage() {
  const { t } = useTranslation();
  const list = usePagedQuery<Entry, Filters>('audit', { actor: '', target_type: '', action: '', from: '', to: '' }, (q) =>
    call(
      client.GET('/api/audit', {
        params: {
          query: compact({
            actor: q.actor.trim(),
            target_type: q.target_type,
            action: q.action.trim(),
            from: fromLocalInput(q.from),
            to: fromLocalInput(q.to),
            page: q.page,
            page_size: q.page_size,
          }),
        },
      }),
    ),
  );
  const filters = useForm<Filters>({ initialValues: list.filters });
  const columns: Column<Entry>[] = [
    { key: 'time', header: t('audit.time'), render: (e) => fmtTime(e.created_at) },
    {
      key: 'actor',
      header: t('audit.actor'),
      render: (e) => (
        <Stack gap={0}>
          <Text size="sm">{e.actor}</Text>
          <Text size="xs" c="dimmed">
            {e.actor_role}
          </Text>
        </Stack>
      ),
    },
    { key: 'action', header: t('audit.action'), render: (e) => <Code>{e.action}</Code> },
    { key: 'target', header: t('audit.target'), render: (e) => `${e.target_type} ${e.target_id}` },
    { key: 'diff', header: t('audit.changes'), render: (e) => <Diff diff={e.diff} /> },
  ];
  return (
    <>
      <PageHeader title={t('nav.audit')} />
      <FilterBar form={filters} onApply={list.setFilters} label={t('audit.filters')}>
        <TextInput label={t('audit.actor')} {...filters.getInputProps('actor')} />
        <FilterSelect label={t('audit.targetType')} data={TARGET_TYPES} {...filters.getInputProps('target_type')} />
        <TextInput label={t('audit.action')} placeholder="channel.*" {...filters.getInputProps('action')} />
        <DateTimeField label={t('audit.from')} {...filters.getInputProps('from')} />
        <DateTimeField label={t('audit.to')} {...filters.getInputProps('to')} />
      </FilterBar>
      <DataTable label={t('nav.audit')} columns={columns} rowKey={(e) => e.id} {...list.table} />
    </>
  );
}
