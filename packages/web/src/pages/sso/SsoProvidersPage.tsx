/**
 * Single sign-on providers (admins): OpenID Connect providers and GitHub, with the redirect URI to
 * register at the provider, the first-login rule (link by verified e-mail or always create) and the
 * login-page button. The client secret is write-only: the list only says whether one is set.
 */
import {
  ActionIcon,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { validators } from '../../components/fields';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';

type Provider = Schemas['SsoProvider'];
type Values = {
  id: string;
  kind: 'oidc' | 'github';
  name: string;
  button_label: string;
  issuer: string;
  api_url: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  account_mode: 'link' | 'create';
  default_group: string;
  allow_insecure: boolean;
  enabled: boolean;
  sort: number | string;
};

function ProviderForm({ provider, onClose }: { provider: Provider | null; onClose: () => void }) {
  const { t } = useTranslation();
  const v = validators(t);
  const form = useForm<Values>({
    initialValues: {
      id: provider?.id ?? '',
      kind: provider?.kind ?? 'oidc',
      name: provider?.name ?? '',
      button_label: provider?.button_label ?? '',
      issuer: provider?.issuer ?? '',
      api_url: provider?.api_url ?? '',
      client_id: provider?.client_id ?? '',
      client_secret: '',
      scopes: provider?.scopes.join(' ') ?? '',
      account_mode: provider?.account_mode ?? 'link',
      default_group: provider?.default_group ?? 'default',
      allow_insecure: provider?.allow_insecure ?? false,
      enabled: provider?.enabled ?? true,
      sort: provider?.sort ?? 0,
    },
    validate: {
      id: (x) => (provider ? null : v.required(x)),
      name: v.required,
      client_id: v.required,
      client_secret: (x) => (provider ? null : v.required(x)),
      issuer: (x, all) => (all.kind === 'oidc' ? v.required(x) : null),
    },
  });
  const github = form.values.kind === 'github';
  const save = useApiMutation(
    (x: Values) => {
      const body = {
        name: x.name.trim(),
        button_label: x.button_label.trim() || undefined,
        client_id: x.client_id.trim(),
        ...(x.client_secret ? { client_secret: x.client_secret } : {}),
        ...(x.issuer.trim() ? { issuer: x.issuer.trim() } : {}),
        ...(x.kind === 'github' ? { api_url: x.api_url.trim() || null } : {}),
        ...(x.scopes.trim() ? { scopes: x.scopes.trim() } : {}),
        account_mode: x.account_mode,
        default_group: x.default_group.trim() || 'default',
        allow_insecure: x.allow_insecure,
        enabled: x.enabled,
        sort: Number(x.sort) || 0,
      };
      return provider
        ? call(client.PUT('/api/sso/providers/{id}', { params: { path: { id: provider.id } }, body }))
        : call(client.POST('/api/sso/providers', { body: { ...body, id: x.id.trim(), kind: x.kind } }));
    },
    { invalidate: ['sso-providers', 'sso-public'], success: t('common.saved'), onSuccess: onClose },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={provider ? t('sso.editTitle', { name: provider.name }) : t('sso.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('sso.id')} description={t('sso.idHint')} required disabled={!!provider} {...form.getInputProps('id')} />
        <Select
          label={t('sso.kind')}
          disabled={!!provider}
          allowDeselect={false}
          data={[
            { value: 'oidc', label: 'OpenID Connect' },
            { value: 'github', label: 'GitHub' },
          ]}
          {...form.getInputProps('kind')}
        />
        <TextInput label={t('sso.name')} required {...form.getInputProps('name')} />
        <TextInput
          label={t('sso.buttonLabel')}
          placeholder={t('sso.signInWith', { name: form.values.name || '…' })}
          {...form.getInputProps('button_label')}
        />
      </SimpleGrid>
      <TextInput
        label={github ? t('sso.githubUrl') : t('sso.issuer')}
        description={github ? t('sso.githubUrlHint') : t('sso.issuerHint')}
        required={!github}
        placeholder={github ? 'https://github.com' : 'https://id.example.com'}
        {...form.getInputProps('issuer')}
      />
      {github && <TextInput label={t('sso.apiUrl')} placeholder="https://api.github.com" {...form.getInputProps('api_url')} />}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('sso.clientId')} required {...form.getInputProps('client_id')} />
        <TextInput
          label={t('sso.clientSecret')}
          type="password"
          autoComplete="new-password"
          required={!provider}
          description={provider ? t('sso.secretKeep') : undefined}
          {...form.getInputProps('client_secret')}
        />
      </SimpleGrid>
      <TextInput
        label={t('sso.scopes')}
        description={t('sso.scopesHint')}
        placeholder={github ? 'read:user user:email' : 'openid email profile'}
        {...form.getInputProps('scopes')}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Select
          label={t('sso.accountMode')}
          allowDeselect={false}
          data={[
            { value: 'link', label: t('sso.modeLink') },
            { value: 'create', label: t('sso.modeCreate') },
          ]}
          {...form.getInputProps('account_mode')}
        />
        <TextInput label={t('sso.defaultGroup')} {...form.getInputProps('default_group')} />
        <NumberInput label={t('sso.sort')} {...form.getInputProps('sort')} />
      </SimpleGrid>
      <Checkbox label={t('sso.enabled')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
      <Checkbox
        label={t('sso.allowInsecure')}
        description={t('sso.allowInsecureHint')}
        {...form.getInputProps('allow_insecure', { type: 'checkbox' })}
      />
    </FormModal>
  );
}

export default function SsoProvidersPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['sso-providers'], queryFn: () => call(client.GET('/api/sso/providers')) });
  const [editing, setEditing] = useState<Provider | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const remove = useApiMutation((id: string) => call(client.DELETE('/api/sso/providers/{id}', { params: { path: { id } } })), {
    invalidate: ['sso-providers', 'sso-public'],
    notifyError: true,
    success: t('sso.deleted'),
  });
  const redirectUri = (p: Provider) => (p.redirect_uri.startsWith('/') ? `${location.origin}${p.redirect_uri}` : p.redirect_uri);
  const columns: Column<Provider>[] = [
    {
      key: 'name',
      header: t('sso.name'),
      render: (p) => (
        <Stack gap={0}>
          <Text size="sm">{p.name}</Text>
          <Text size="xs" c="dimmed">
            {p.id}
          </Text>
        </Stack>
      ),
    },
    { key: 'kind', header: t('sso.kind'), render: (p) => (p.kind === 'github' ? 'GitHub' : 'OpenID Connect') },
    {
      key: 'issuer',
      header: t('sso.issuer'),
      render: (p) => (
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {p.issuer}
        </Text>
      ),
    },
    { key: 'redirect', header: t('sso.redirectUri'), render: (p) => <Code style={{ wordBreak: 'break-all' }}>{redirectUri(p)}</Code> },
    {
      key: 'mode',
      header: t('sso.accountMode'),
      render: (p) => (p.account_mode === 'link' ? t('sso.modeLinkShort') : t('sso.modeCreateShort')),
    },
    {
      key: 'status',
      header: t('sso.enabled'),
      render: (p) => (
        <Badge color={p.enabled ? 'green' : 'gray'} variant="light">
          {p.enabled ? t('common.enabled') : t('common.disabled')}
        </Badge>
      ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (p) => (
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('common.edit')}>
            <ActionIcon variant="subtle" aria-label={t('sso.editTitle', { name: p.name })} onClick={() => setEditing(p)}>
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('common.delete')}>
            <ActionIcon variant="subtle" color="red" aria-label={t('sso.deleteNamed', { name: p.name })} onClick={() => setDeleting(p)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('nav.sso')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
          {t('sso.create')}
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed" mb="md">
        {t('sso.intro')}
      </Text>
      <DataTable
        label={t('sso.tableLabel')}
        columns={columns}
        rowKey={(p) => p.id}
        rows={q.data}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
        empty={t('sso.empty')}
      />
      {editing !== undefined && <ProviderForm provider={editing} onClose={() => setEditing(undefined)} />}
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('sso.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('sso.confirmDelete', { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      />
    </>
  );
}
