/**
 * MCP servers (admins): the remote MCP servers served at /mcp — register, edit, delete, see each
 * server's tools — and the keys' allow-lists (`mcp_tools`). Header values and the OAuth client secret
 * are write-only: the list shows header names and whether a secret is set. The MCP tool plugins
 * served beside them are listed read-only.
 */
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconList, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { ErrorState } from '../../components/ErrorState';
import { ListField, validators } from '../../components/fields';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { PluginToolsCard } from './PluginToolsCard';

type Server = Schemas['McpServer'];
type Values = {
  name: string;
  url: string;
  headers: string;
  tools: string[];
  groups: string[];
  description: string;
  enabled: boolean;
  oauth_client_id: string;
  oauth_client_secret: string;
  oauth_issuer: string;
};

/** `Name: value` lines → a header object (null: no line). */
function parseHeaders(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return Object.keys(out).length ? out : null;
}

function ServerForm({ server, onClose }: { server: Server | null; onClose: () => void }) {
  const { t } = useTranslation();
  const v = validators(t);
  const form = useForm<Values>({
    initialValues: {
      name: server?.name ?? '',
      url: server?.url ?? '',
      headers: '',
      tools: server?.tools ?? [],
      groups: server?.groups ?? [],
      description: server?.description ?? '',
      enabled: server?.enabled ?? true,
      oauth_client_id: server?.oauth?.client_id ?? '',
      oauth_client_secret: '',
      oauth_issuer: server?.oauth?.issuer ?? '',
    },
    validate: { name: (x) => (server ? null : v.required(x)), url: v.required },
  });
  const save = useApiMutation(
    (x: Values) => {
      const headers = parseHeaders(x.headers);
      const oauth =
        x.oauth_client_id.trim() && x.oauth_client_secret
          ? {
              client_id: x.oauth_client_id.trim(),
              client_secret: x.oauth_client_secret,
              ...(x.oauth_issuer.trim() ? { issuer: x.oauth_issuer.trim() } : {}),
            }
          : undefined;
      const body = {
        url: x.url.trim(),
        // Left empty while editing: the stored headers stay.
        ...(headers || !server ? { headers } : {}),
        ...(oauth ? { oauth } : !x.oauth_client_id.trim() && server?.oauth ? { oauth: null } : {}),
        tools: x.tools.length ? x.tools : null,
        groups: x.groups.length ? x.groups : null,
        description: x.description.trim() || null,
        enabled: x.enabled,
      };
      return server
        ? call(client.PUT('/api/mcp/servers/{name}', { params: { path: { name: server.name } }, body }))
        : call(client.POST('/api/mcp/servers', { body: { ...body, name: x.name.trim() } }));
    },
    { invalidate: ['mcp-servers'], success: t('common.saved'), onSuccess: onClose },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={server ? t('mcp.editTitle', { name: server.name }) : t('mcp.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <TextInput label={t('mcp.name')} description={t('mcp.nameHint')} required disabled={!!server} {...form.getInputProps('name')} />
      <TextInput label={t('mcp.url')} required placeholder="https://mcp.example.com/mcp" {...form.getInputProps('url')} />
      <Textarea
        label={t('mcp.headers')}
        description={server?.header_names.length ? t('mcp.headersKeep', { names: server.header_names.join(', ') }) : t('mcp.headersHint')}
        placeholder="Authorization: Bearer …"
        autosize
        minRows={2}
        {...form.getInputProps('headers')}
      />
      <ListField label={t('mcp.toolsFilter')} description={t('mcp.toolsFilterHint')} {...form.getInputProps('tools')} />
      <ListField label={t('mcp.groups')} description={t('mcp.groupsHint')} {...form.getInputProps('groups')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput label={t('mcp.oauthClientId')} {...form.getInputProps('oauth_client_id')} />
        <TextInput
          label={t('mcp.oauthClientSecret')}
          type="password"
          autoComplete="new-password"
          description={server?.oauth?.client_secret_set ? t('mcp.secretKeep') : undefined}
          {...form.getInputProps('oauth_client_secret')}
        />
        <TextInput label={t('mcp.oauthIssuer')} {...form.getInputProps('oauth_issuer')} />
      </SimpleGrid>
      <TextInput label={t('mcp.description')} {...form.getInputProps('description')} />
      <Checkbox label={t('mcp.enabled')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </FormModal>
  );
}

function ToolsDialog({ server, onClose }: { server: Server; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['mcp-tools', server.name],
    queryFn: () => call(client.GET('/api/mcp/servers/{name}/tools', { params: { path: { name: server.name } } })),
    retry: false,
  });
  return (
    <Modal
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened
      onClose={onClose}
      title={t('mcp.toolsTitle', { name: server.name })}
      size="lg"
    >
      {q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <Table aria-label={t('mcp.toolsTableLabel')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('mcp.toolName')}</Table.Th>
              <Table.Th>{t('mcp.description')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(q.data ?? []).map((tool) => (
              <Table.Tr key={tool.name}>
                <Table.Td>
                  <Code>{`${server.name}__${tool.name}`}</Code>
                </Table.Td>
                <Table.Td>{tool.description ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {q.isFetching && <Text size="sm">{t('common.loading')}</Text>}
    </Modal>
  );
}

/** A key's allow-list: pick a key, edit its `server/tool` and `server/*` entries. */
function AllowLists({ servers }: { servers: Server[] }) {
  const { t } = useTranslation();
  const keys = useQuery({
    queryKey: ['mcp-keys'],
    queryFn: () => call(client.GET('/api/token', { params: { query: { all: true, page_size: 100 } } })),
  });
  const [keyId, setKeyId] = useState<string | null>(null);
  const [tools, setTools] = useState<string[]>([]);
  const items = keys.data?.items ?? [];
  const pick = (id: string | null) => {
    setKeyId(id);
    setTools(items.find((k) => String(k.id) === id)?.mcp_tools ?? []);
  };
  const save = useApiMutation(
    () =>
      call(client.PUT('/api/token/{id}', { params: { path: { id: Number(keyId) } }, body: { mcp_tools: tools.length ? tools : null } })),
    { invalidate: ['mcp-keys'], success: t('common.saved') },
  );
  return (
    <Card withBorder mt="lg">
      <Title order={3} size="h4" mb="xs">
        {t('mcp.allowTitle')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('mcp.allowIntro')}
      </Text>
      <Stack>
        <Select
          label={t('mcp.key')}
          searchable
          data={items.map((k) => ({ value: String(k.id), label: `${k.name} (${k.username ?? k.user_id}, ${k.hint})` }))}
          value={keyId}
          onChange={pick}
        />
        <ListField
          label={t('mcp.allowList')}
          description={t('mcp.allowListHint', { examples: servers.map((s) => `${s.name}/*`).join(', ') || 'github/*' })}
          disabled={!keyId}
          value={tools}
          onChange={setTools}
        />
        <Group>
          <Button disabled={!keyId} loading={save.isPending} onClick={() => save.mutate(undefined)}>
            {t('mcp.saveAllowList')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

export default function McpServersPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['mcp-servers'], queryFn: () => call(client.GET('/api/mcp/servers')) });
  const [editing, setEditing] = useState<Server | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Server | null>(null);
  const [viewing, setViewing] = useState<Server | null>(null);
  const remove = useApiMutation((name: string) => call(client.DELETE('/api/mcp/servers/{name}', { params: { path: { name } } })), {
    invalidate: ['mcp-servers'],
    notifyError: true,
    success: t('mcp.deleted'),
  });
  const columns: Column<Server>[] = [
    {
      key: 'name',
      header: t('mcp.name'),
      render: (s) => (
        <Stack gap={0}>
          <Text size="sm">{s.name}</Text>
          {s.description && (
            <Text size="xs" c="dimmed">
              {s.description}
            </Text>
          )}
        </Stack>
      ),
    },
    {
      key: 'url',
      header: t('mcp.url'),
      render: (s) => (
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {s.url}
        </Text>
      ),
    },
    { key: 'headers', header: t('mcp.headers'), render: (s) => s.header_names.join(', ') || '—' },
    { key: 'tools', header: t('mcp.toolsFilter'), render: (s) => s.tools?.join(', ') ?? t('mcp.allTools') },
    {
      key: 'status',
      header: t('mcp.enabled'),
      render: (s) => (
        <Badge color={s.enabled ? 'green' : 'gray'} variant="light">
          {s.enabled ? t('common.enabled') : t('common.disabled')}
        </Badge>
      ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (s) => (
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('mcp.tools')}>
            <ActionIcon
              variant="subtle"
              aria-label={t('mcp.toolsTitle', { name: s.name })}
              onClick={() => setViewing(s)}
              disabled={!s.enabled}
            >
              <IconList size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('common.edit')}>
            <ActionIcon variant="subtle" aria-label={t('mcp.editTitle', { name: s.name })} onClick={() => setEditing(s)}>
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('common.delete')}>
            <ActionIcon variant="subtle" color="red" aria-label={t('mcp.deleteNamed', { name: s.name })} onClick={() => setDeleting(s)}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('nav.mcp')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
          {t('mcp.create')}
        </Button>
      </PageHeader>
      <Text size="sm" c="dimmed" mb="md">
        {t('mcp.intro')}
      </Text>
      <DataTable
        label={t('mcp.tableLabel')}
        columns={columns}
        rowKey={(s) => s.name}
        rows={q.data}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
        empty={t('mcp.empty')}
      />
      <PluginToolsCard />
      <AllowLists servers={q.data ?? []} />
      {editing !== undefined && <ServerForm server={editing} onClose={() => setEditing(undefined)} />}
      {viewing && <ToolsDialog server={viewing} onClose={() => setViewing(null)} />}
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('mcp.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('mcp.confirmDelete', { name: deleting?.name ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.name)}
      />
    </>
  );
}
