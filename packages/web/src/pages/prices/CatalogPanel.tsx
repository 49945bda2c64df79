/** The list-price catalog: every vendor's list prices with source and date, adopted all at once or model by model. */
import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { useApiMutation } from '../../components/useApiMutation';

type Entry = Schemas['CatalogEntry'];

export function CatalogPanel() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['price-catalog'], queryFn: () => call(client.GET('/api/price/catalog')) });
  const adopt = useApiMutation(
    (models: string[] | null) => call(client.POST('/api/price/import', { body: models ? { models, overwrite: true } : {} })),
    {
      invalidate: ['price-catalog', 'prices'],
      notifyError: true,
      success: (d) => t('prices.catalogImported', { count: d.imported.length, kept: d.kept.length }),
    },
  );
  const columns: Column<Entry>[] = [
    { key: 'model', header: t('prices.model'), render: (e) => e.model },
    { key: 'vendor', header: t('prices.vendor'), render: (e) => e.vendor },
    { key: 'input', header: t('prices.inputShort'), numeric: true, render: (e) => `$${e.input}` },
    { key: 'output', header: t('prices.outputShort'), numeric: true, render: (e) => `$${e.output}` },
    {
      key: 'source',
      header: t('prices.source'),
      render: (e) => (
        <Anchor href={e.source} target="_blank" rel="noreferrer" size="sm">
          {e.as_of}
        </Anchor>
      ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (e) => (
        <Button size="xs" variant="subtle" aria-label={t('prices.adoptNamed', { model: e.model })} onClick={() => adopt.mutate([e.model])}>
          {e.priced ? t('prices.adoptReplace') : t('prices.adopt')}
        </Button>
      ),
    },
  ];
  return (
    <Stack>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {t('prices.catalogHint')}
        </Text>
        <Button onClick={() => adopt.mutate(null)} loading={adopt.isPending}>
          {t('prices.adoptAll')}
        </Button>
      </Group>
      <DataTable
        label={t('prices.catalog')}
        columns={columns}
        rowKey={(e) => e.model}
        rows={q.data}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
    </Stack>
  );
}
