/**
 * Teams (admins): every team with its wallet and members' count; create a team, top up its wallet
 * (each top-up names itself once, so a resent form credits once), delete one, and open its page.
 */
import { ActionIcon, Button, Group, NumberInput, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconCoin, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime, fmtUsd } from '../../lib/format';

type Team = Schemas['Team'];

function CreateTeam({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm({ initialValues: { name: '' }, validate: { name: (x) => (x.trim() ? null : t('validation.required')) } });
  const save = useApiMutation((x: { name: string }) => call(client.POST('/api/team', { body: { name: x.name.trim() } })), {
    invalidate: ['teams'],
    onSuccess: () => onClose(),
  });
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('teams.createTitle')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={t('common.create')}
    >
      <TextInput label={t('teams.name')} required maxLength={48} {...form.getInputProps('name')} />
    </FormModal>
  );
}

function TopUp({ team, onClose }: { team: Team; onClose: () => void }) {
  const { t } = useTranslation();
  // One reference per opened form: a resent request credits the wallet once.
  const [ref] = useState(() => `console:${team.id}:${Date.now()}:${Math.random().toString(36).slice(2, 10)}`);
  const form = useForm<{ amount: number | string }>({
    initialValues: { amount: 10 },
    validate: { amount: (x) => (Number(x) > 0 ? null : t('teams.amountPositive')) },
  });
  const save = useApiMutation(
    (x: { amount: number | string }) =>
      call(client.POST('/api/team/{id}/quota', { params: { path: { id: team.id } }, body: { quota_usd: Number(x.amount), ref } })),
    { invalidate: ['teams'], success: t('teams.toppedUp'), onSuccess: () => onClose() },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('teams.topUpOf', { name: team.name })}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={t('teams.topUp')}
    >
      <NumberInput label={t('teams.amount')} prefix="$" min={0} decimalScale={6} required {...form.getInputProps('amount')} />
    </FormModal>
  );
}

export default function TeamsAdminPage() {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['teams', 'all', page],
    queryFn: () => call(client.GET('/api/team', { params: { query: { page, page_size: 20 } } })),
  });
  const [creating, setCreating] = useState(false);
  const [topping, setTopping] = useState<Team | null>(null);
  const remove = useApiMutation((id: number) => call(client.DELETE('/api/team/{id}', { params: { path: { id } } })), {
    invalidate: ['teams'],
    notifyError: true,
    success: t('teams.deleted'),
  });
  const columns: Column<Team>[] = [
    {
      key: 'name',
      header: t('teams.name'),
      render: (x) => (
        <Text component={Link} to={`/team/${x.id}`} fw={500} c="blue">
          {x.name}
        </Text>
      ),
    },
    { key: 'wallet', header: t('teams.wallet'), numeric: true, render: (x) => fmtUsd(x.quota_usd) },
    { key: 'used', header: t('teams.used'), numeric: true, render: (x) => fmtUsd(x.used_quota_usd) },
    { key: 'requests', header: t('teams.requests'), numeric: true, render: (x) => x.request_count },
    { key: 'created', header: t('teams.created'), render: (x) => fmtTime(x.created_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (x) => (
        <Group gap={4} wrap="nowrap">
          <ActionIcon variant="subtle" aria-label={t('teams.topUpOf', { name: x.name })} onClick={() => setTopping(x)}>
            <IconCoin size={16} />
          </ActionIcon>
          <ActionIcon variant="subtle" color="red" aria-label={t('teams.deleteOf', { name: x.name })} onClick={() => remove.mutate(x.id)}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('nav.teams')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          {t('teams.createTitle')}
        </Button>
      </PageHeader>
      <DataTable
        label={t('nav.teams')}
        columns={columns}
        rows={q.data?.items}
        total={q.data?.total}
        page={page}
        pageSize={20}
        onPage={setPage}
        rowKey={(x) => x.id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      {creating && <CreateTeam onClose={() => setCreating(false)} />}
      {topping && <TopUp team={topping} onClose={() => setTopping(null)} />}
    </>
  );
}
