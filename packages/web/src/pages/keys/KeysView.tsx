/**
 * API keys, the user's own or (admins) everyone's: list, create (the key is shown once, with a copy
 * button and examples of calls with it), where to send calls (the gateway's address and examples, also per key), limits (models, IP ranges, expiry, spending cap, rate limits and a period budget), the
 * default task callback URL and the callback signing secret (made here, shown once), enable/disable and revoke.
 */
import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Code,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconCode, IconPencil, IconPlus, IconTrash, IconWebhook } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { ApiAccess } from '../../components/ApiAccess';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { UserPicker, useChannelModels } from '../../components/pickers';
import { CopyField } from '../../components/CopyField';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTimeField } from '../../components/DateTimeField';
import { ListField } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtTime, fmtUsd, fromLocalInput, toLocalInput } from '../../lib/format';
import { LimitFields, limitBody, limitSummary, limitValidators, limitValues } from '../../components/LimitFields';

type Key = Schemas['Key'];
type Scope = 'own' | 'all';
type Filters = { keyword: string; user_id: string };

const IP_OR_CIDR = /^(\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-f:]+(\/\d{1,3})?)$/i;

function KeyForm({
  keyRow,
  scope,
  onClose,
  onCreated,
}: {
  keyRow: Key | null;
  scope: Scope;
  onClose: () => void;
  onCreated: (k: string) => void;
}) {
  const { t } = useTranslation();
  // The models to pick from: the caller's own group's, or (for another user's key) every model the channels serve.
  const own = useQuery({ queryKey: ['user-models'], queryFn: () => call(client.GET('/api/user/models')), enabled: scope === 'own' });
  const all = useChannelModels(scope === 'all');
  const modelChoices = scope === 'own' ? (own.data?.items.map((m) => m.model) ?? []) : (all.data ?? []);
  const form = useForm({
    initialValues: {
      name: keyRow?.name ?? '',
      user_id: '',
      expires_at: keyRow?.expires_at ? toLocalInput(keyRow.expires_at) : '',
      cap_usd: keyRow && !keyRow.unlimited_quota ? keyRow.remain_quota_usd : ('' as number | string),
      models: keyRow?.models ?? [],
      allowed_ips: keyRow?.allowed_ips ?? [],
      callback_url: keyRow?.callback_url ?? '',
      ...limitValues(keyRow),
    },
    validate: {
      ...limitValidators(t),
      name: (x) => (x.trim() ? null : t('validation.required')),
      expires_at: (x) => (x && (fromLocalInput(x) ?? 0) <= Date.now() ? t('keys.expiryPast') : null),
      cap_usd: (x) => (x !== '' && Number(x) < 0 ? t('validation.nonNegative') : null),
      allowed_ips: (x) => (x.every((ip) => IP_OR_CIDR.test(ip)) ? null : t('keys.badIp')),

      callback_url: (x) => (x.trim() && !/^https?:\/\/\S+$/i.test(x.trim()) ? t('keys.badCallbackUrl') : null),
    },
  });
  const save = useApiMutation(
    async (x: typeof form.values) => {
      const body: Schemas['KeyInput'] = {
        name: x.name.trim(),
        expires_at: x.expires_at ? fromLocalInput(x.expires_at)! : null,
        ...(x.cap_usd === '' ? { unlimited_quota: true, quota: null } : { unlimited_quota: false, quota_usd: Number(x.cap_usd) }),
        models: x.models.length ? x.models : null,
        allowed_ips: x.allowed_ips.length ? x.allowed_ips : null,
        callback_url: x.callback_url.trim() || null,
        ...limitBody(x),
        ...(scope === 'all' && !keyRow && x.user_id !== '' ? { user_id: Number(x.user_id) } : {}),
      };
      if (keyRow) return { key: undefined, row: await call(client.PUT('/api/token/{id}', { params: { path: { id: keyRow.id } }, body })) };
      const created = await call(client.POST('/api/token', { body }));
      return { key: (created as { key?: string }).key, row: created };
    },
    {
      invalidate: ['keys'],
      onSuccess: (d) => {
        onClose();
        if (d.key) onCreated(d.key);
      },
    },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={keyRow ? t('keys.editTitle', { name: keyRow.name }) : t('keys.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('keys.name')} required {...form.getInputProps('name')} />
        {scope === 'all' && !keyRow && (
          <UserPicker label={t('keys.user')} description={t('keys.userIdHint')} {...form.getInputProps('user_id')} />
        )}
        <DateTimeField label={t('keys.expires')} description={t('keys.expiresHint')} {...form.getInputProps('expires_at')} />
        <NumberInput
          label={t('keys.cap')}
          description={t('keys.capHint')}
          prefix="$"
          min={0}
          decimalScale={6}
          {...form.getInputProps('cap_usd')}
        />
      </SimpleGrid>
      <ListField
        label={t('keys.models')}
        description={t('keys.modelsHint')}
        data={modelChoices}
        limit={50}
        {...form.getInputProps('models')}
      />
      <ListField label={t('keys.ips')} description={t('keys.ipsHint')} {...form.getInputProps('allowed_ips')} />
      <TextInput
        label={t('keys.callbackUrl')}
        description={t('keys.callbackUrlHint')}
        placeholder="https://"
        {...form.getInputProps('callback_url')}
      />
      <LimitFields form={form} row={keyRow} />
    </FormModal>
  );
}

export function KeysView({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const list = usePagedQuery<Key, Filters>('keys', { keyword: '', user_id: '' }, (q) =>
    call(
      client.GET('/api/token', {
        params: {
          query: {
            ...compact({ keyword: q.keyword, page: q.page, page_size: q.page_size }),
            ...(scope === 'all' ? (q.user_id ? { user_id: Number(q.user_id) } : { all: true }) : {}),
          },
        },
      }),
    ),
  );
  const filters = useForm<Filters>({ initialValues: list.filters });
  const [editing, setEditing] = useState<Key | null | undefined>(undefined);
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [secretFor, setSecretFor] = useState<Key | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [using, setUsing] = useState<Key | null>(null);
  const makeSecret = useApiMutation((id: number) => call(client.POST('/api/token/{id}/callback-secret', { params: { path: { id } } })), {
    invalidate: ['keys'],
    notifyError: true,
    onSuccess: (d) => {
      setSecretFor(null);
      setSecret(d.callback_secret);
    },
  });
  const revoke = useApiMutation((id: number) => call(client.DELETE('/api/token/{id}', { params: { path: { id } } })), {
    invalidate: ['keys'],
    notifyError: true,
    success: t('keys.revoked'),
  });
  const toggle = useApiMutation(
    (v: { id: number; enabled: boolean }) =>
      call(client.PUT('/api/token/{id}', { params: { path: { id: v.id } }, body: { status: v.enabled ? 'enabled' : 'disabled' } })),
    { invalidate: ['keys'], notifyError: true },
  );
  const columns: Column<Key>[] = [
    {
      key: 'name',
      header: t('keys.name'),
      render: (k) => (
        <Text size="sm" fw={500}>
          {k.name}
        </Text>
      ),
    },
    ...(scope === 'all' ? [{ key: 'user', header: t('keys.user'), render: (k: Key) => `${k.username} (#${k.user_id})` }] : []),
    { key: 'hint', header: t('keys.key'), render: (k) => <Code>{k.hint}</Code> },
    { key: 'status', header: t('keys.status'), render: (k) => <StatusBadge status={k.status} /> },
    {
      key: 'cap',
      header: t('keys.remaining'),
      numeric: true,
      render: (k) => (k.unlimited_quota ? t('keys.unlimited') : fmtUsd(k.remain_quota_usd)),
    },
    {
      key: 'models',
      header: t('keys.models'),
      render: (k) => (
        <Text size="sm" lineClamp={1} maw={200}>
          {k.models?.join(', ') ?? t('keys.anyModel')}
        </Text>
      ),
    },
    { key: 'ips', header: t('keys.ips'), render: (k) => k.allowed_ips?.join(', ') ?? t('keys.anywhere') },
    {
      key: 'limits',
      header: t('limits.column'),
      render: (k) => (
        <Text size="sm" lineClamp={2} maw={220}>
          {limitSummary(t, k)}
        </Text>
      ),
    },
    { key: 'expires', header: t('keys.expires'), render: (k) => (k.expires_at ? fmtTime(k.expires_at) : t('common.never')) },
    { key: 'used', header: t('keys.lastUsed'), render: (k) => fmtTime(k.accessed_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (k) => (
        <Group gap={4} wrap="nowrap">
          <Switch
            size="sm"
            checked={k.status === 'enabled'}
            disabled={k.status === 'expired' || k.status === 'exhausted'}
            aria-label={t('keys.enabledNamed', { name: k.name })}
            onChange={(e) => toggle.mutate({ id: k.id, enabled: e.currentTarget.checked })}
          />
          <Tooltip label={t('common.edit')}>
            <ActionIcon variant="subtle" aria-label={t('keys.editTitle', { name: k.name })} onClick={() => setEditing(k)}>
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('access.title')}>
            <ActionIcon variant="subtle" aria-label={t('access.forKey', { name: k.name })} onClick={() => setUsing(k)}>
              <IconCode size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('keys.callbackSecret')}>
            <ActionIcon variant="subtle" aria-label={t('keys.callbackSecretNamed', { name: k.name })} onClick={() => setSecretFor(k)}>
              <IconWebhook size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('keys.revoke')}>
            <ActionIcon variant="subtle" color="red" aria-label={t('keys.revokeNamed', { name: k.name })} onClick={() => setRevoking(k)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={scope === 'all' ? t('nav.allKeys') : t('nav.keys')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
          {t('keys.create')}
        </Button>
      </PageHeader>
      <FilterBar form={filters} onApply={list.setFilters} label={t('keys.filters')}>
        <TextInput label={t('keys.name')} {...filters.getInputProps('keyword')} />
        {scope === 'all' && <UserPicker label={t('keys.user')} w={220} {...filters.getInputProps('user_id')} />}
      </FilterBar>
      <Card withBorder mb="md" component="section" aria-label={t('access.title')}>
        <Title order={3} size="h5" mb="xs">
          {t('access.title')}
        </Title>
        <ApiAccess />
      </Card>
      <DataTable label={scope === 'all' ? t('nav.allKeys') : t('nav.keys')} columns={columns} rowKey={(k) => k.id} {...list.table} />
      <Modal
        closeButtonProps={{ 'aria-label': t('common.close') }}
        opened={!!using}
        onClose={() => setUsing(null)}
        title={t('access.forKey', { name: using?.name ?? '' })}
        centered
        size="lg"
      >
        <Stack>
          <Text size="sm">{t('access.keyNotShown', { hint: using?.hint ?? '' })}</Text>
          <ApiAccess />
        </Stack>
      </Modal>
      {editing !== undefined && <KeyForm keyRow={editing} scope={scope} onClose={() => setEditing(undefined)} onCreated={setCreated} />}
      <Modal
        closeButtonProps={{ 'aria-label': t('common.close') }}
        opened={!!created}
        onClose={() => setCreated(null)}
        title={t('keys.createdTitle')}
        centered
        size="lg"
      >
        <Stack>
          <Alert color="yellow">{t('keys.shownOnce')}</Alert>
          <CopyField label={t('keys.newKey')} value={created ?? ''} />
          <Title order={3} size="h5">
            {t('access.title')}
          </Title>
          {created && <ApiAccess apiKey={created} />}
          <Group justify="flex-end">
            <Button onClick={() => setCreated(null)}>{t('keys.stored')}</Button>
          </Group>
        </Stack>
      </Modal>
      <ConfirmDialog
        opened={!!secretFor}
        onClose={() => setSecretFor(null)}
        title={t('keys.callbackSecret')}
        confirmLabel={t('keys.makeSecret')}
        message={
          secretFor?.callback_secret_set
            ? t('keys.confirmRotateSecret', { name: secretFor.name })
            : t('keys.confirmMakeSecret', { name: secretFor?.name ?? '' })
        }
        onConfirm={() => secretFor && makeSecret.mutate(secretFor.id)}
      />
      <Modal
        closeButtonProps={{ 'aria-label': t('common.close') }}
        opened={!!secret}
        onClose={() => setSecret(null)}
        title={t('keys.callbackSecret')}
        centered
        size="lg"
      >
        <Stack>
          <Alert color="yellow">{t('keys.secretShownOnce')}</Alert>
          <CopyField label={t('keys.callbackSecret')} value={secret ?? ''} />
          <Group justify="flex-end">
            <Button onClick={() => setSecret(null)}>{t('keys.stored')}</Button>
          </Group>
        </Stack>
      </Modal>
      <ConfirmDialog
        opened={!!revoking}
        onClose={() => setRevoking(null)}
        title={t('keys.revokeTitle')}
        confirmLabel={t('keys.revoke')}
        message={t('keys.confirmRevoke', { name: revoking?.name ?? '' })}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
      />
    </>
  );
}
