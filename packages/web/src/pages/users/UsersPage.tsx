/**
 * Users (admin): list, create, edit role/group/status/password and rate limits and budget, top up or
 * adjust the balance with a reason (also opened by a link, `/users?topup=<id>`), ledger history, delete.
 */
import {
  ActionIcon,
  Button,
  Drawer,
  Menu,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconDots, IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { isRoot, useSelf } from '../../app/session';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { FilterSelect, validators } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtInt, fmtTime, fmtUsd } from '../../lib/format';
import { LimitFields, limitBody, limitSummary, limitValidators, limitValues } from '../../components/LimitFields';

type User = Schemas['User'];
type LedgerEntry = Schemas['LedgerEntry'];
type Filters = { keyword: string; role: string; status: string; group: string };

function useRoleOptions() {
  const { t } = useTranslation();
  const self = useSelf();
  return (isRoot(self.data) ? ['user', 'admin', 'root'] : ['user']).map((r) => ({ value: r, label: t(`status.${r}` as 'status.user') }));
}

function UserForm({ user, onClose }: { user: User | null; onClose: () => void }) {
  const { t } = useTranslation();
  const v = validators(t);
  const roles = useRoleOptions();
  const form = useForm({
    initialValues: {
      username: user?.username ?? '',
      password: '',
      display_name: user?.display_name ?? '',
      role: user?.role ?? 'user',
      group: user?.group ?? 'default',
      status: user?.status ?? 'enabled',
      quota_usd: 0 as number | string,
      ...limitValues(user),
    },
    validate: {
      ...limitValidators(t),
      username: (x) => (/^[A-Za-z0-9_.@-]{1,64}$/.test(x) ? null : t('users.usernameRule')),
      password: (x) => (user && !x ? null : v.password(x)),
      group: v.required,
      quota_usd: v.nonNegative,
    },
  });
  const save = useApiMutation(
    (x: typeof form.values) => {
      const common = {
        username: x.username,
        display_name: x.display_name,
        role: x.role,
        group: x.group.trim(),
        status: x.status,
        ...(x.password ? { password: x.password } : {}),
        ...limitBody(x),
      };
      return user
        ? call(client.PUT('/api/user/{id}', { params: { path: { id: user.id } }, body: common }))
        : call(
            client.POST('/api/user', {
              body: { ...common, password: x.password, quota_usd: Number(x.quota_usd) || 0 } as Schemas['UserCreate'],
            }),
          );
    },
    { invalidate: ['users'], success: t('common.saved'), onSuccess: onClose },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={user ? t('users.editTitle', { name: user.username }) : t('users.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('users.username')} required autoComplete="off" {...form.getInputProps('username')} />
        <TextInput label={t('users.displayName')} {...form.getInputProps('display_name')} />
        <PasswordInput
          label={t('users.password')}
          description={user ? t('users.passwordKeep') : t('validation.password')}
          required={!user}
          autoComplete="new-password"
          {...form.getInputProps('password')}
        />
        <TextInput label={t('users.group')} required {...form.getInputProps('group')} />
        <Select label={t('users.role')} allowDeselect={false} data={roles} {...form.getInputProps('role')} />
        <Select
          label={t('users.status')}
          allowDeselect={false}
          data={['enabled', 'disabled'].map((s) => ({ value: s, label: t(`status.${s}` as 'status.enabled') }))}
          {...form.getInputProps('status')}
        />
        {!user && <NumberInput label={t('users.startBalance')} prefix="$" min={0} decimalScale={6} {...form.getInputProps('quota_usd')} />}
      </SimpleGrid>
      <LimitFields form={form} row={user} />
    </FormModal>
  );
}

function QuotaForm({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { mode: 'add', amount_usd: '' as number | string, reason: '' },
    validate: {
      amount_usd: (x, all) =>
        x === '' || Number.isNaN(Number(x))
          ? t('validation.number')
          : all.mode === 'set' && Number(x) < 0
            ? t('validation.nonNegative')
            : null,
      reason: (x) => (x.length > 500 ? t('users.reasonTooLong') : null),
    },
  });
  const save = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.POST('/api/user/{id}/quota', {
          params: { path: { id: user.id } },
          body: {
            mode: x.mode as 'add' | 'set',
            amount_usd: Number(x.amount_usd),
            ...(x.reason.trim() ? { reason: x.reason.trim() } : {}),
          },
        }),
      ),
    { invalidate: ['users', 'ledger'], success: (u) => t('users.balanceNow', { usd: fmtUsd((u as User).quota_usd) }), onSuccess: onClose },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('users.quotaTitle', { name: user.username })}
      size="md"
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <Text size="sm">
        {t('users.currentBalance')}: <b>{fmtUsd(user.quota_usd)}</b>
      </Text>
      <SegmentedControl
        aria-label={t('users.quotaMode')}
        data={[
          { value: 'add', label: t('users.add') },
          { value: 'set', label: t('users.set') },
        ]}
        {...form.getInputProps('mode')}
      />
      <NumberInput
        label={form.values.mode === 'add' ? t('users.amountAdd') : t('users.amountSet')}
        prefix="$"
        decimalScale={6}
        required
        {...form.getInputProps('amount_usd')}
      />
      <TextInput label={t('users.reason')} description={t('users.reasonHint')} maxLength={500} {...form.getInputProps('reason')} />
      <Text size="xs" c="dimmed">
        {t('users.ledgerNote')}
      </Text>
    </FormModal>
  );
}

/** A user's ledger: every movement of the balance, newest first, paged on the server. */
function LedgerDrawer({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const list = usePagedQuery<LedgerEntry, { id: number }>('ledger', { id: user.id }, (q) =>
    call(
      client.GET('/api/user/{id}/ledger', {
        params: { path: { id: q.id }, query: { page: q.page, page_size: q.page_size } },
      }),
    ),
  );
  const columns: Column<LedgerEntry>[] = [
    { key: 'time', header: t('users.ledgerTime'), render: (e) => fmtTime(e.created_at) },
    { key: 'kind', header: t('users.ledgerKind'), render: (e) => e.kind },
    {
      key: 'change',
      header: t('users.ledgerChange'),
      numeric: true,
      render: (e) => (
        <Text size="sm" c={e.change < 0 ? 'red.9' : undefined}>
          {e.change > 0 ? '+' : ''}
          {fmtUsd(e.change_usd)}
        </Text>
      ),
    },
    { key: 'note', header: t('users.ledgerNote2'), render: (e) => e.note ?? '' },
    {
      key: 'ref',
      header: t('users.ledgerRef'),
      render: (e) => (
        <Text size="xs" ff="monospace">
          {e.ref}
        </Text>
      ),
    },
  ];
  return (
    <Drawer
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened
      onClose={onClose}
      position="right"
      size="xl"
      title={t('users.ledgerTitle', { name: user.username })}
    >
      <DataTable label={t('users.ledgerTitle', { name: user.username })} columns={columns} rowKey={(e) => e.id} {...list.table} />
    </Drawer>
  );
}

export default function UsersPage() {
  const { t } = useTranslation();
  const list = usePagedQuery<User, Filters>('users', { keyword: '', role: '', status: '', group: '' }, (q) =>
    call(client.GET('/api/user', { params: { query: compact(q) } })),
  );
  const filters = useForm<Filters>({ initialValues: list.filters });
  const [editing, setEditing] = useState<User | null | undefined>(undefined);
  const [quota, setQuota] = useState<User | null>(null);
  // A link to a top-up (the playground's, when the operator's own balance ran out) opens it here.
  const [params, setParams] = useSearchParams();
  const topupId = Number(params.get('topup')) || 0;
  const linked = useQuery({
    queryKey: ['user', topupId],
    queryFn: () => call(client.GET('/api/user/{id}', { params: { path: { id: topupId } } })),
    enabled: topupId > 0,
  });
  const quotaUser = quota ?? (topupId > 0 ? (linked.data ?? null) : null);
  const closeQuota = () => {
    setQuota(null);
    if (topupId) setParams({}, { replace: true });
  };
  const [ledger, setLedger] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const remove = useApiMutation((id: number) => call(client.DELETE('/api/user/{id}', { params: { path: { id } } })), {
    invalidate: ['users'],
    notifyError: true,
    success: t('users.deleted'),
  });
  const columns: Column<User>[] = [
    { key: 'id', header: 'ID', render: (u) => u.id },
    {
      key: 'username',
      header: t('users.username'),
      render: (u) => (
        <Text size="sm" fw={500}>
          {u.username}
          {u.display_name && u.display_name !== u.username ? (
            <Text span c="dimmed" size="xs">
              {' '}
              · {u.display_name}
            </Text>
          ) : null}
        </Text>
      ),
    },
    { key: 'role', header: t('users.role'), render: (u) => <StatusBadge status={u.role} /> },
    { key: 'group', header: t('users.group'), render: (u) => u.group },
    { key: 'status', header: t('users.status'), render: (u) => <StatusBadge status={u.status} /> },
    { key: 'balance', header: t('users.balance'), numeric: true, render: (u) => fmtUsd(u.quota_usd) },
    { key: 'requests', header: t('users.requests'), numeric: true, render: (u) => fmtInt(u.request_count) },
    {
      key: 'limits',
      header: t('limits.column'),
      render: (u) => (
        <Text size="sm" lineClamp={2} maw={220}>
          {limitSummary(t, u)}
        </Text>
      ),
    },
    { key: 'created', header: t('users.created'), render: (u) => fmtTime(u.created_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (u) => (
        <Menu withinPortal position="bottom-end">
          <Menu.Target>
            <ActionIcon variant="subtle" aria-label={t('users.actionsFor', { name: u.username })}>
              <IconDots size={16} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => setQuota(u)}>{t('users.topUp')}</Menu.Item>
            <Menu.Item onClick={() => setLedger(u)}>{t('users.ledger')}</Menu.Item>
            <Menu.Item onClick={() => setEditing(u)}>{t('common.edit')}</Menu.Item>
            <Menu.Divider />
            <Menu.Item color="red" onClick={() => setDeleting(u)}>
              {t('common.delete')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('nav.users')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
          {t('users.create')}
        </Button>
      </PageHeader>
      <FilterBar form={filters} onApply={list.setFilters} label={t('users.filters')}>
        <TextInput label={t('users.keyword')} {...filters.getInputProps('keyword')} />
        <FilterSelect
          label={t('users.role')}
          data={['user', 'admin', 'root'].map((r) => ({ value: r, label: t(`status.${r}` as 'status.user') }))}
          {...filters.getInputProps('role')}
        />
        <FilterSelect
          label={t('users.status')}
          data={['enabled', 'disabled'].map((s) => ({ value: s, label: t(`status.${s}` as 'status.enabled') }))}
          {...filters.getInputProps('status')}
        />
        <TextInput label={t('users.group')} {...filters.getInputProps('group')} />
      </FilterBar>
      <DataTable label={t('nav.users')} columns={columns} rowKey={(u) => u.id} {...list.table} />
      {editing !== undefined && <UserForm user={editing} onClose={() => setEditing(undefined)} />}
      {quotaUser && <QuotaForm user={quotaUser} onClose={closeQuota} />}
      {ledger && <LedgerDrawer user={ledger} onClose={() => setLedger(null)} />}
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('users.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('users.confirmDelete', { name: deleting?.username ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      />
    </>
  );
}
