/**
 * A team's invitations (team page, owners and admins): invite by email with a role — the link is
 * mailed, or shown here to hand over when the gateway sends no mail — see the open ones and revoke one.
 */
import { ActionIcon, Badge, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { CopyField } from '../../components/CopyField';
import { DataTable, type Column } from '../../components/DataTable';
import { FormModal } from '../../components/FormModal';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';
import { ROLES, type TeamRole } from './team-common';

type Invitation = Schemas['TeamInvitation'];

function Invite({ teamId, onClose }: { teamId: number; onClose: () => void }) {
  const { t } = useTranslation();
  const [link, setLink] = useState<string | null>(null);
  const form = useForm<{ email: string; role: TeamRole }>({
    initialValues: { email: '', role: 'member' },
    validate: { email: (x) => (/^\S+@\S+$/.test(x.trim()) ? null : t('teams.emailInvalid')) },
  });
  const save = useApiMutation(
    (x: { email: string; role: TeamRole }) =>
      call(client.POST('/api/team/{id}/invitations', { params: { path: { id: teamId } }, body: { email: x.email.trim(), role: x.role } })),
    {
      invalidate: ['team'],
      onSuccess: (r) => {
        // Without a public address the gateway answers a path: hand over the address this console is at.
        if (r.link) setLink(new URL(r.link, location.origin).href);
        else onClose();
      },
      success: (r) => (r.mailed ? t('teams.inviteMailed') : t('teams.inviteCreated')),
    },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('teams.invite')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={t('teams.send')}
    >
      {link ? (
        <Stack>
          <Text size="sm">{t('teams.inviteLinkHint')}</Text>
          <CopyField label={t('teams.inviteLink')} value={link} />
        </Stack>
      ) : (
        <>
          <TextInput label={t('teams.email')} required type="email" {...form.getInputProps('email')} />
          <Select
            label={t('teams.role')}
            data={ROLES.map((r) => ({ value: r, label: t(`teams.roles.${r}`) }))}
            allowDeselect={false}
            {...form.getInputProps('role')}
          />
        </>
      )}
    </FormModal>
  );
}

export function TeamInvitations({ teamId }: { teamId: number }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['team', teamId, 'invitations'],
    queryFn: () => call(client.GET('/api/team/{id}/invitations', { params: { path: { id: teamId } } })),
  });
  const [inviting, setInviting] = useState(false);
  const revoke = useApiMutation(
    (invId: number) => call(client.DELETE('/api/team/{id}/invitations/{invId}', { params: { path: { id: teamId, invId } } })),
    { invalidate: ['team'], notifyError: true, success: t('teams.inviteRevoked') },
  );
  const state = (i: Invitation) =>
    i.accepted_at ? 'accepted' : i.revoked_at ? 'revoked' : i.expires_at < Date.now() ? 'expired' : ('open' as const);
  const columns: Column<Invitation>[] = [
    { key: 'email', header: t('teams.email'), render: (i) => i.email },
    { key: 'role', header: t('teams.role'), render: (i) => t(`teams.roles.${i.role}`) },
    {
      key: 'state',
      header: t('teams.status'),
      render: (i) => (
        <Badge variant="dot" color={state(i) === 'open' ? 'blue' : state(i) === 'accepted' ? 'green' : 'gray'}>
          {t(`teams.inviteStates.${state(i)}`)}
        </Badge>
      ),
    },
    { key: 'expires', header: t('teams.expires'), render: (i) => fmtTime(i.expires_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (i) =>
        state(i) === 'open' ? (
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={t('teams.revokeInviteOf', { email: i.email })}
            onClick={() => revoke.mutate(i.id)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        ) : null,
    },
  ];
  return (
    <>
      <Group justify="flex-end" mb="sm">
        <Button leftSection={<IconMailPlus size={16} />} onClick={() => setInviting(true)}>
          {t('teams.invite')}
        </Button>
      </Group>
      <DataTable
        label={t('teams.invitations')}
        columns={columns}
        rows={q.data}
        rowKey={(i) => i.id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      {inviting && <Invite teamId={teamId} onClose={() => setInviting(false)} />}
    </>
  );
}
