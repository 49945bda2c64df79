/**
 * Redemption codes (admins): create a batch (amount, count, expiry, note) and see its codes once with
 * copy and download, list with filters (status, name or code), enable/disable, delete, and export the
 * filtered list as CSV (GET /api/redemption/export).
 */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDownload, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, urlWithQuery, type Schemas } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTimeField } from '../../components/DateTimeField';
import { FilterSelect } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtTime, fmtUsd, fromLocalInput } from '../../lib/format';

type RCode = Schemas['RedemptionCode'];
type Status = RCode['status'];
type Filters = { status: string; keyword: string };
const STATUSES: Status[] = ['enabled', 'disabled', 'used', 'expired'];
const COLORS: Record<Status, string> = { enabled: 'green', disabled: 'gray', used: 'blue', expired: 'orange' };

function CreateForm({ onClose, onCreated }: { onClose: () => void; onCreated: (codes: string[], name: string) => void }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { name: '', amount_usd: 10 as number | string, count: 1 as number | string, expires_at: '', note: '' },
    validate: {
      name: (x) => (x.trim() ? null : t('validation.required')),
      amount_usd: (x) => (x === '' || !(Number(x) > 0) ? t('topup.amountPositive') : null),
      count: (x) => (x === '' || !Number.isInteger(Number(x)) || Number(x) < 1 || Number(x) > 1000 ? t('topup.countRange') : null),
      expires_at: (x) => (x && (fromLocalInput(x) ?? 0) <= Date.now() ? t('keys.expiryPast') : null),
    },
  });
  const save = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.POST('/api/redemption', {
          body: {
            name: x.name.trim(),
            quota_usd: Number(x.amount_usd),
            count: Number(x.count),
            note: x.note.trim() || undefined,
            ...(x.expires_at ? { expires_at: fromLocalInput(x.expires_at)! } : {}),
          },
        }),
      ),
    {
      invalidate: ['codes'],
      onSuccess: (codes, x) => {
        onClose();
        onCreated(codes, x.name.trim());
      },
    },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('topup.createTitle')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={t('topup.create')}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('topup.name')} required {...form.getInputProps('name')} />
        <NumberInput label={t('topup.amountUsd')} prefix="$" min={0} decimalScale={6} required {...form.getInputProps('amount_usd')} />
        <NumberInput label={t('topup.count')} min={1} max={1000} allowDecimal={false} required {...form.getInputProps('count')} />
        <DateTimeField label={t('topup.expires')} description={t('topup.expiresHint')} {...form.getInputProps('expires_at')} />
      </SimpleGrid>
      <TextInput label={t('topup.note')} maxLength={500} {...form.getInputProps('note')} />
    </FormModal>
  );
}

function CreatedCodes({ codes, name, onClose }: { codes: string[]; name: string; onClose: () => void }) {
  const { t } = useTranslation();
  const text = codes.join('\n');
  const download = () => {
    const url = URL.createObjectURL(new Blob([`${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${name.replace(/[^\w.-]+/g, '_') || 'codes'}.txt`;
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Modal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened
      onClose={onClose}
      title={t('topup.createdTitle', { count: codes.length })}
      centered
      size="lg"
    >
      <Stack>
        <Alert color="yellow">{t('topup.createdHint')}</Alert>
        <Textarea
          label={t('topup.newCodes')}
          value={text}
          readOnly
          autosize
          minRows={Math.min(codes.length, 3)}
          maxRows={12}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Group justify="flex-end">
          <CopyButton value={text}>
            {({ copied, copy }) => (
              <Button variant="default" onClick={copy}>
                {copied ? t('common.copied') : t('common.copy')}
              </Button>
            )}
          </CopyButton>
          <Button variant="default" leftSection={<IconDownload size={16} />} onClick={download}>
            {t('topup.download')}
          </Button>
          <Button onClick={onClose}>{t('keys.stored')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export default function RedemptionPage() {
  const { t } = useTranslation();
  const list = usePagedQuery<RCode, Filters>('codes', { status: '', keyword: '' }, (q) =>
    call(
      client.GET('/api/redemption', {
        params: {
          query: compact({
            status: (q.status || undefined) as Status | undefined,
            keyword: q.keyword.trim(),
            page: q.page,
            page_size: q.page_size,
          }),
        },
      }),
    ),
  );
  const filters = useForm<Filters>({ initialValues: list.filters });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ codes: string[]; name: string } | null>(null);
  const [deleting, setDeleting] = useState<RCode | null>(null);
  const toggle = useApiMutation(
    (v: { id: number; enabled: boolean }) =>
      call(client.PUT('/api/redemption', { body: { id: v.id, status: v.enabled ? 'enabled' : 'disabled' } })),
    { invalidate: ['codes'], notifyError: true },
  );
  const remove = useApiMutation((id: number) => call(client.DELETE('/api/redemption/{id}', { params: { path: { id } } })), {
    invalidate: ['codes'],
    notifyError: true,
    success: t('topup.deleted'),
  });
  const exportHref = urlWithQuery('/api/redemption/export', { status: list.filters.status, keyword: list.filters.keyword.trim() });
  const columns: Column<RCode>[] = [
    {
      key: 'name',
      header: t('topup.name'),
      render: (c) => (
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            {c.name}
          </Text>
          {c.note && (
            <Text size="xs" c="dimmed">
              {c.note}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'code',
      header: t('topup.code'),
      render: (c) => (
        <CopyButton value={c.code}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? t('common.copied') : t('common.copy')} withArrow>
              <Code style={{ cursor: 'pointer' }} onClick={copy} aria-label={t('topup.copyCode', { name: c.name })}>
                {c.code}
              </Code>
            </Tooltip>
          )}
        </CopyButton>
      ),
    },
    { key: 'amount', header: t('topup.amountUsd'), numeric: true, render: (c) => fmtUsd(c.quota_usd) },
    {
      key: 'status',
      header: t('topup.status'),
      render: (c) => (
        <Badge variant="dot" color={COLORS[c.status]}>
          {t(`topup.codeStatus.${c.status}` as 'topup.codeStatus.used')}
        </Badge>
      ),
    },
    { key: 'expires', header: t('topup.expires'), render: (c) => (c.expires_at ? fmtTime(c.expires_at) : t('common.never')) },
    { key: 'used', header: t('topup.usedBy'), render: (c) => (c.used_user_id ? `#${c.used_user_id} · ${fmtTime(c.redeemed_at)}` : '—') },
    { key: 'created', header: t('topup.created'), render: (c) => fmtTime(c.created_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (c) => (
        <Group gap={4} wrap="nowrap">
          <Switch
            size="sm"
            checked={c.status === 'enabled' || c.status === 'expired'}
            disabled={c.status === 'used'}
            aria-label={t('topup.enabledNamed', { code: c.code.slice(0, 8) })}
            onChange={(e) => toggle.mutate({ id: c.id, enabled: e.currentTarget.checked })}
          />
          <Tooltip label={t('common.delete')}>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('topup.deleteNamed', { code: c.code.slice(0, 8) })}
              onClick={() => setDeleting(c)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('topup.navCodes')}>
        <Button component="a" href={exportHref} download variant="default" leftSection={<IconDownload size={16} />}>
          {t('topup.export')}
        </Button>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          {t('topup.createTitle')}
        </Button>
      </PageHeader>
      <FilterBar form={filters} onApply={list.setFilters} label={t('topup.filters')}>
        <FilterSelect
          label={t('topup.status')}
          data={STATUSES.map((s) => ({ value: s, label: t(`topup.codeStatus.${s}` as 'topup.codeStatus.used') }))}
          {...filters.getInputProps('status')}
        />
        <TextInput label={t('topup.keyword')} {...filters.getInputProps('keyword')} />
      </FilterBar>
      <DataTable label={t('topup.navCodes')} columns={columns} rowKey={(c) => c.id} {...list.table} />
      {creating && <CreateForm onClose={() => setCreating(false)} onCreated={(codes, name) => setCreated({ codes, name })} />}
      {created && <CreatedCodes codes={created.codes} name={created.name} onClose={() => setCreated(null)} />}
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('topup.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('topup.confirmDelete', { code: deleting?.code ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      />
    </>
  );
}
