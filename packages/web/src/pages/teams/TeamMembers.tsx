/**
 * A team's members (team page): roles and each member's budget within the team (at most that much of
 * the team's money per day, week or month); owners and admins add, change and remove members.
 */
import { ActionIcon, Button, Group, NumberInput, Select, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { FormModal } from '../../components/FormModal';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtUsd } from '../../lib/format';
import { manages, ROLES, type Standing, type TeamRole } from './team-common';

type Member = Schemas['TeamMember'];
type Values = { username: string; role: TeamRole; budget_usd: number | string; budget_period: string };

function MemberForm({ teamId, member, onClose }: { teamId: number; member: Member | null; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<Values>({
    initialValues: {
      username: member?.username ?? '',
      role: (member?.role as TeamRole) ?? 'member',
      budget_usd: member?.budget_usd ?? '',
      budget_period: member?.budget_period ?? 'month',
    },
    validate: { username: (x) => (member || x.trim() ? null : t('validation.required')) },
  });
  const save = useApiMutation(
    (x: Values) => {
      const budget =
        x.budget_usd === ''
          ? { budget_usd: null, budget_period: null }
          : {
              budget_usd: Number(x.budget_usd),
              budget_period: x.budget_period as 'day' | 'week' | 'month',
            };
      return member
        ? call(
            client.PUT('/api/team/{id}/members/{userId}', {
              params: { path: { id: teamId, userId: member.user_id } },
              body: { role: x.role, ...budget },
            }),
          )
        : call(
            client.POST('/api/team/{id}/members', {
              params: { path: { id: teamId } },
              body: { username: x.username.trim(), role: x.role, ...budget },
            }),
          );
    },
    { invalidate: ['team'], onSuccess: () => onClose() },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={member ? t('teams.editMemberOf', { name: member.username }) : t('teams.addMember')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={member ? t('common.save') : t('teams.add')}
    >
      {!member && <TextInput label={t('teams.username')} required {...form.getInputProps('username')} />}
      <Select
        label={t('teams.role')}
        data={ROLES.map((r) => ({ value: r, label: t(`teams.roles.${r}`) }))}
        allowDeselect={false}
        {...form.getInputProps('role')}
      />
      <Group grow align="flex-start">
        <NumberInput
          label={t('teams.budget')}
          description={t('teams.budgetHint')}
          prefix="$"
          min={0}
          decimalScale={6}
          {...form.getInputProps('budget_usd')}
        />
        <Select
          label={t('teams.period')}
          data={(['day', 'week', 'month'] as const).map((p) => ({ value: p, label: t(`teams.periods.${p}`) }))}
          allowDeselect={false}
          {...form.getInputProps('budget_period')}
        />
      </Group>
    </FormModal>
  );
}

export function TeamMembers({ teamId, standing }: { teamId: number; standing: Standing | undefined }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['team', teamId, 'members'],
    queryFn: () => call(client.GET('/api/team/{id}/members', { params: { path: { id: teamId } } })),
  });
  const [editing, setEditing] = useState<Member | 'new' | null>(null);
  const remove = useApiMutation(
    (userId: number) => call(client.DELETE('/api/team/{id}/members/{userId}', { params: { path: { id: teamId, userId } } })),
    { invalidate: ['team'], notifyError: true, success: t('teams.memberRemoved') },
  );
  const canManage = manages(standing);
  const columns: Column<Member>[] = [
    { key: 'user', header: t('teams.username'), render: (m) => m.display_name || m.username },
    { key: 'role', header: t('teams.role'), render: (m) => t(`teams.roles.${m.role}`) },
    {
      key: 'budget',
      header: t('teams.budget'),
      render: (m) =>
        m.budget_usd == null ? t('teams.noBudget') : `${fmtUsd(m.budget_usd)} / ${t(`teams.periods.${m.budget_period as 'day'}`)}`,
    },
    ...(canManage
      ? [
          {
            key: 'actions',
            header: t('common.actions'),
            render: (m: Member) => (
              <Group gap={4} wrap="nowrap">
                <ActionIcon variant="subtle" aria-label={t('teams.editMemberOf', { name: m.username })} onClick={() => setEditing(m)}>
                  <IconPencil size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={t('teams.removeMemberOf', { name: m.username })}
                  onClick={() => remove.mutate(m.user_id)}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ),
          },
        ]
      : []),
  ];
  return (
    <>
      {canManage && (
        <Group justify="flex-end" mb="sm">
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
            {t('teams.addMember')}
          </Button>
        </Group>
      )}
      <DataTable
        label={t('teams.members')}
        columns={columns}
        rows={q.data}
        rowKey={(m) => m.user_id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      {editing && <MemberForm teamId={teamId} member={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </>
  );
}
