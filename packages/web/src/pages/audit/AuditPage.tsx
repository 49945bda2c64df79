/**
 * The audit log (admins): every administrative write with its actor, time, action, target (by name, its id on
 * hover) and the fields it changed — amounts of money in USD (the quota units on hover), secrets shown as
 * [redacted] by the gateway —, filtered by actor, target type, action and time (GET /api/audit).
 */
import { Code, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTimeField } from '../../components/DateTimeField';
import { FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { PageHeader } from '../../components/PageHeader';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { quotaPerUsd, useSelf } from '../../app/session';
import { fmtInt, fmtQuota, fmtTime, fmtUsd, fromLocalInput } from '../../lib/format';

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

/** Fields that hold an amount in quota units (a balance, a key's remaining cap, what was used), and in USD. */
const QUOTA_FIELD = /^(quota|used_quota|remain_quota|amount|budget_quota)$/;
const USD_FIELD = /_usd$/;

/** One side of a change: money as money (quota units on hover), anything else as written. */
function Value({ field, v, perUsd }: { field: string; v: unknown; perUsd: number }) {
  if (typeof v === 'number' && QUOTA_FIELD.test(field)) {
    return (
      <Tooltip label={`${fmtInt(v)} quota`} withArrow>
        <Text span size="xs" td="underline dotted" tabIndex={0}>
          {fmtQuota(v, perUsd)}
        </Text>
      </Tooltip>
    );
  }
  if (typeof v === 'number' && USD_FIELD.test(field)) return <>{fmtUsd(v)}</>;
  return <>{show(v)}</>;
}

function Diff({ diff, perUsd }: { diff: Entry['diff']; perUsd: number }) {
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
          <Code>{field}</Code> <Value field={field} v={c?.before} perUsd={perUsd} /> → <Value field={field} v={c?.after} perUsd={perUsd} />
        </Text>
      ))}
    </Stack>
  );
}

export default function AuditPage() {
  const { t } = useTranslation();
  const perUsd = quotaPerUsd(useSelf().data);
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
    {
      key: 'target',
      header: t('audit.target'),
      render: (e) => {
        const type = t(`audit.targets.${e.target_type}` as 'audit.targets.user', { defaultValue: e.target_type });
        return (
          <Tooltip label={`${e.target_type} #${e.target_id}`} withArrow>
            <Text size="sm" tabIndex={0}>
              {type} {e.target_name ?? e.target_id}
            </Text>
          </Tooltip>
        );
      },
    },
    { key: 'diff', header: t('audit.changes'), render: (e) => <Diff diff={e.diff} perUsd={perUsd} /> },
  ];
  return (
    <>
      <PageHeader title={t('nav.audit')} />
      <FilterBar form={filters} onApply={list.setFilters} label={t('audit.filters')}>
        <TextInput label={t('audit.actor')} {...filters.getInputProps('actor')} />
        <FilterSelect
          label={t('audit.targetType')}
          data={TARGET_TYPES.map((x) => ({ value: x, label: t(`audit.targets.${x}` as 'audit.targets.user') }))}
          {...filters.getInputProps('target_type')}
        />
        <TextInput label={t('audit.action')} placeholder="channel.*" {...filters.getInputProps('action')} />
        <DateTimeField label={t('audit.from')} {...filters.getInputProps('from')} />
        <DateTimeField label={t('audit.to')} {...filters.getInputProps('to')} />
      </FilterBar>
      <DataTable label={t('nav.audit')} columns={columns} rowKey={(e) => e.id} {...list.table} />
    </>
  );
}
