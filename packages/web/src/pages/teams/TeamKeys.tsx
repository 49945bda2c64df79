/**
 * A team's keys (team page): keys whose calls the team's wallet pays, each within its member's budget.
 * Members see and make their own; owners and admins see and revoke every key of the team. A new key
 * is shown once.
 */
import { ActionIcon, Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { CopyField } from '../../components/CopyField';
import { DataTable, type Column } from '../../components/DataTable';
import { FormModal } from '../../components/FormModal';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { hasKeys, type Standing } from './team-common';

type TeamKey = { id: number; user_id: number; name: string; hint: string; status: string; username?: unknown };

function NewKey({ teamId, onClose, onCreated }: { teamId: number; onClose: () => void; onCreated: (key: string) => void }) {
  const { t } = useTranslation();
  const form = useForm({ initialValues: { name: '' }, validate: { name: (x) => (x.trim() ? null : t('validation.required')) } });
  const save = useApiMutation(
    (x: { name: string }) => call(client.POST('/api/team/{id}/keys', { params: { path: { id: teamId } }, body: { name: x.name.trim() } })),
    {
      invalidate: ['team'],
      onSuccess: (k) => {
        onClose();
        const key = (k as { key?: unknown }).key;
        if (typeof key === 'string') onCreated(key);
      },
    },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={t('teams.newKey')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={t('common.create')}
    >
      <TextInput label={t('teams.keyName')} required maxLength={64} {...form.getInputProps('name')} />
    </FormModal>
  );
}

export function TeamKeys({ teamId, standing }: { teamId: number; standing: Standing | undefined }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ['team', teamId, 'keys', page],
    queryFn: () => call(client.GET('/api/team/{id}/keys', { params: { path: { id: teamId }, query: { page, page_size: 20 } } })),
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const revoke = useApiMutation(
    (keyId: number) => call(client.DELETE('/api/team/{id}/keys/{keyId}', { params: { path: { id: teamId, keyId } } })),
    { invalidate: ['team'], notifyError: true, success: t('teams.keyRevoked') },
  );
  const columns: Column<TeamKey>[] = [
    { key: 'name', header: t('teams.keyName'), render: (k) => k.name },
    { key: 'owner', header: t('teams.username'), render: (k) => (typeof k.username === 'string' ? k.username : `#${k.user_id}`) },
    { key: 'hint', header: t('teams.key'), render: (k) => <Code>{k.hint}</Code> },
    { key: 'status', header: t('teams.status'), render: (k) => <StatusBadge status={k.status} /> },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (k) => (
        <ActionIcon variant="subtle" color="red" aria-label={t('teams.revokeOf', { name: k.name })} onClick={() => revoke.mutate(k.id)}>
          <IconTrash size={16} />
        </ActionIcon>
      ),
    },
  ];
  return (
    <>
      {hasKeys(standing) && (
        <Group justify="flex-end" mb="sm">
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            {t('teams.newKey')}
          </Button>
        </Group>
      )}
      <DataTable
        label={t('teams.keys')}
        columns={columns}
        rows={q.data?.items as TeamKey[] | undefined}
        total={q.data?.total}
        page={page}
        pageSize={20}
        onPage={setPage}
        rowKey={(k) => k.id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      {creating && <NewKey teamId={teamId} onClose={() => setCreating(false)} onCreated={setCreated} />}
      {created && (
        <Modal opened onClose={() => setCreated(null)} title={t('teams.keyCreated')} closeButtonProps={{ 'aria-label': t('common.close') }}>
          <Stack>
            <Text size="sm">{t('teams.keyOnce')}</Text>
            <CopyField label={t('teams.key')} value={created} />
          </Stack>
        </Modal>
      )}
    </>
  );
}
