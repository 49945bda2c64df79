/** Settings (root): every run-time option with its description; changed values are saved together. */
import { ActionIcon, Alert, Badge, Button, Group, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowBackUp } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';

type Option = Schemas['Option'];

export default function SettingsPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['options'], queryFn: () => call(client.GET('/api/option')) });
  const form = useForm<Record<string, string>>({ initialValues: {} });
  const [filter, setFilter] = useState('');
  const { setInitialValues, setValues } = form;
  useEffect(() => {
    if (!q.data) return;
    const v = Object.fromEntries(q.data.map((o) => [o.key, o.value]));
    setInitialValues(v);
    setValues(v);
  }, [q.data, setInitialValues, setValues]);
  const changed = Object.entries(form.values).filter(([k, v]) => q.data?.find((o) => o.key === k)?.value !== v);
  const save = useApiMutation(() => call(client.PUT('/api/option', { body: { options: Object.fromEntries(changed) } })), {
    invalidate: ['options'],
    success: t('common.saved'),
  });
  const reset = useApiMutation((key: string) => call(client.DELETE('/api/option/{key}', { params: { path: { key } } })), {
    invalidate: ['options'],
    notifyError: true,
    success: t('settings.resetDone'),
  });
  const rows = q.data?.filter(
    (o) => !filter || o.key.toLowerCase().includes(filter.toLowerCase()) || o.doc.toLowerCase().includes(filter.toLowerCase()),
  );
  const columns: Column<Option>[] = [
    {
      key: 'key',
      header: t('settings.option'),
      render: (o) => (
        <Stack gap={2} maw={420}>
          <Text size="sm" ff="monospace" fw={500}>
            {o.key}
          </Text>
          <Text size="xs" c="dimmed">
            {o.doc}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'value',
      header: t('settings.value'),
      render: (o) => <TextInput aria-label={o.key} size="xs" miw={220} {...form.getInputProps(o.key)} />,
    },
    {
      key: 'default',
      header: t('settings.source'),
      render: (o) =>
        o.default ? (
          <Badge variant="light" color="gray">
            {t('settings.default')}
          </Badge>
        ) : (
          <Badge variant="light">{t('settings.stored')}</Badge>
        ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (o) => (
        <Tooltip label={t('settings.reset')}>
          <ActionIcon
            variant="subtle"
            disabled={o.default}
            aria-label={t('settings.resetNamed', { key: o.key })}
            onClick={() => reset.mutate(o.key)}
          >
            <IconArrowBackUp size={16} />
          </ActionIcon>
        </Tooltip>
      ),
    },
  ];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (changed.length) save.mutate(undefined);
      }}
      aria-label={t('nav.settings')}
    >
      <PageHeader title={t('nav.settings')}>
        <Text size="sm" c="dimmed">
          {t('settings.changed', { count: changed.length })}
        </Text>
        <Button variant="default" disabled={!changed.length} onClick={() => form.reset()}>
          {t('settings.discard')}
        </Button>
        <Button type="submit" disabled={!changed.length} loading={save.isPending}>
          {t('settings.save')}
        </Button>
      </PageHeader>
      {save.error && (
        <Alert color="red" role="alert" mb="md" title={t('error.refused')}>
          {save.error.message}
        </Alert>
      )}
      <Group mb="md">
        <TextInput label={t('settings.search')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} w={300} />
      </Group>
      <DataTable
        label={t('nav.settings')}
        columns={columns}
        rowKey={(o) => o.key}
        rows={rows}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
    </form>
  );
}
