/**
 * The MCP tool plugins served at /mcp beside the remote servers (read-only): each plugin key is a
 * server, its tools listed under the names keys see. Plugins are installed through the plugin
 * administration (POST /api/plugin/mcp_tool).
 */
import { Badge, Card, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';

interface PluginTool {
  key: string;
  meta: Record<string, unknown>;
  enabled: boolean;
  serving_version: string | null;
  runtime_status: string;
}

export function PluginToolsCard() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['mcp-plugin-tools'], queryFn: () => call(client.GET('/api/plugin/mcp_tool')) });
  const rows = q.data as PluginTool[] | undefined;
  const columns: Column<PluginTool>[] = [
    { key: 'key', header: t('mcp.name'), render: (p) => p.key },
    { key: 'plugin', header: t('mcp.pluginName'), render: (p) => `${String(p.meta.name ?? '')} ${p.serving_version ?? ''}`.trim() },
    {
      key: 'tools',
      header: t('mcp.toolName'),
      render: (p) => (Array.isArray(p.meta.tools) ? p.meta.tools.map((n) => `${p.key}__${String(n)}`).join(', ') : '—'),
    },
    {
      key: 'status',
      header: t('mcp.enabled'),
      render: (p) => (
        <Badge color={p.runtime_status === 'registered' ? 'green' : 'gray'} variant="light">
          {p.enabled ? t('common.enabled') : t('common.disabled')}
        </Badge>
      ),
    },
  ];
  return (
    <Card withBorder mt="lg">
      <Title order={3} size="h4" mb="xs">
        {t('mcp.pluginsTitle')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('mcp.pluginsIntro')}
      </Text>
      <DataTable
        label={t('mcp.pluginsTableLabel')}
        columns={columns}
        rowKey={(p) => p.key}
        rows={rows}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
        empty={t('mcp.pluginsEmpty')}
      />
    </Card>
  );
}
