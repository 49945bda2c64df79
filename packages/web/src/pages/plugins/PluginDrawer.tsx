/** One plugin: details, stored versions (activate, delete) and a dry run of one hook. */
import { Alert, Badge, Button, Code, Drawer, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DetailList } from '../../components/DetailList';
import { ErrorState } from '../../components/ErrorState';
import { JsonField } from '../../components/fields';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';

function DryRun({ pluginKey }: { pluginKey: string }) {
  const { t } = useTranslation();
  const [output, setOutput] = useState<unknown>(undefined);
  const form = useForm({
    initialValues: { hook: '', member: '', args: '[]' },
    validate: {
      hook: (x) => (x.trim() ? null : t('validation.required')),
      args: (x) => {
        try {
          return Array.isArray(JSON.parse(x || '[]')) ? null : t('plugins.argsArray');
        } catch {
          return t('validation.json');
        }
      },
    },
  });
  const run = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.POST('/api/plugin/task/{key}/dryrun', {
          params: { path: { key: pluginKey } },
          body: { hook: x.hook.trim(), member: x.member.trim() || undefined, args: JSON.parse(x.args || '[]') as unknown[] },
        }),
      ),
    { onSuccess: (d) => setOutput((d as { output?: unknown }).output) },
  );
  return (
    <form
      onSubmit={form.onSubmit((x) => {
        setOutput(undefined);
        run.mutate(x);
      })}
      noValidate
      aria-label={t('plugins.dryRun')}
    >
      <Stack gap="xs">
        <Title order={3} size="h5">
          {t('plugins.dryRun')}
        </Title>
        <Group grow>
          <TextInput label={t('plugins.hook')} placeholder="buildSubmitRequest" required {...form.getInputProps('hook')} />
          <TextInput label={t('plugins.member')} {...form.getInputProps('member')} />
        </Group>
        <JsonField label={t('plugins.args')} {...form.getInputProps('args')} />
        {run.error && (
          <Alert color="red" role="alert">
            {run.error.message}
          </Alert>
        )}
        {output !== undefined && <Code block>{JSON.stringify(output, null, 2)}</Code>}
        <Group justify="flex-end">
          <Button type="submit" variant="light" loading={run.isPending}>
            {t('plugins.run')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function PluginDrawer({ pluginKey, onClose }: { pluginKey: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useQuery({
    queryKey: ['plugin', pluginKey],
    enabled: !!pluginKey,
    queryFn: () => call(client.GET('/api/plugin/task/{key}', { params: { path: { key: pluginKey! } } })),
  });
  const versions = useQuery({
    queryKey: ['plugin', pluginKey, 'versions'],
    enabled: !!pluginKey,
    queryFn: () => call(client.GET('/api/plugin/task/{key}/versions', { params: { path: { key: pluginKey! } } })),
  });
  const activate = useApiMutation(
    (version: string) => call(client.POST('/api/plugin/task/{key}/activate', { params: { path: { key: pluginKey! } }, body: { version } })),
    { invalidate: ['plugins', 'plugin'], notifyError: true, success: t('plugins.activated') },
  );
  const remove = useApiMutation(
    (version: string) =>
      call(client.DELETE('/api/plugin/task/{key}/versions/{version}', { params: { path: { key: pluginKey!, version } } })),
    { invalidate: ['plugins', 'plugin'], notifyError: true, success: t('plugins.versionDeleted') },
  );
  const d = detail.data;
  const meta = (d?.meta ?? {}) as { name?: unknown; description?: unknown; models?: unknown };
  return (
    <Drawer
      closeButtonProps={{ 'aria-label': t('common.close') }}
      opened={!!pluginKey}
      onClose={onClose}
      position="right"
      size="xl"
      title={pluginKey ?? ''}
    >
      {detail.error ? (
        <ErrorState error={detail.error} onRetry={() => void detail.refetch()} />
      ) : (
        d && (
          <Stack>
            {d.runtime_error && (
              <Alert color="red" title={t('plugins.runtimeError')}>
                {d.runtime_error}
              </Alert>
            )}
            <DetailList
              items={[
                [t('plugins.name'), typeof meta.name === 'string' ? meta.name : JSON.stringify(meta.name ?? '—')],
                [t('plugins.activeVersion'), d.active_version],
                [t('common.enabled'), d.enabled ? t('common.yes') : t('common.no')],
                [t('plugins.hash'), d.source_hash ? <Code key="h">{d.source_hash.slice(0, 16)}…</Code> : '—'],
                [t('plugins.uploadedAt'), d.uploaded_at ? fmtTime(d.uploaded_at * 1000) : '—'],
                [t('plugins.remark'), d.remark || '—'],
              ]}
            />
            <Title order={3} size="h5">
              {t('plugins.versions')}
            </Title>
            {versions.error ? (
              <ErrorState error={versions.error} onRetry={() => void versions.refetch()} />
            ) : (
              <Table aria-label={t('plugins.versions')}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{t('plugins.version')}</Table.Th>
                    <Table.Th scope="col">{t('plugins.uploadedAt')}</Table.Th>
                    <Table.Th scope="col">{t('common.actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {versions.data?.map((v) => (
                    <Table.Tr key={v.version}>
                      <Table.Td>
                        {v.version}{' '}
                        {v.active && (
                          <Badge size="xs" ml={4}>
                            {t('plugins.active')}
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{v.uploaded_at ? fmtTime(v.uploaded_at * 1000) : '—'}</Table.Td>
                      <Table.Td>
                        <Group gap={4}>
                          {!v.active && (
                            <Button
                              size="xs"
                              variant="light"
                              onClick={() => activate.mutate(v.version)}
                              aria-label={t('plugins.activateNamed', { version: v.version })}
                            >
                              {t('plugins.activate')}
                            </Button>
                          )}
                          <ConfirmButton
                            size="xs"
                            variant="subtle"
                            color="red"
                            title={t('plugins.deleteVersion')}
                            message={t('plugins.confirmDeleteVersion', { version: v.version })}
                            onConfirm={() => remove.mutate(v.version)}
                            aria-label={t('plugins.deleteNamed', { version: v.version })}
                          >
                            {t('common.delete')}
                          </ConfirmButton>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            {d.active_version && <DryRun pluginKey={d.key} />}
            {typeof d.plugin_source === 'string' && (
              <details>
                <summary>
                  <Text span size="sm">
                    {t('plugins.viewSource')}
                  </Text>
                </summary>
                <Code block mah={300} style={{ overflow: 'auto' }}>
                  {d.plugin_source}
                </Code>
              </details>
            )}
          </Stack>
        )
      )}
    </Drawer>
  );
}
