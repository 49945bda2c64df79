/** The models the user's group may use and what each costs them (group ratio applied). */
import { Badge, Group, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';

type Model = Schemas['GroupModelPrice'];
const usd = (v: number | null | undefined) => (v == null ? '—' : `$${v}`);

export default function ModelsPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['user-models'], queryFn: () => call(client.GET('/api/user/models')) });
  const [search, setSearch] = useState('');
  const rows = q.data?.items.filter((m) => m.model.toLowerCase().includes(search.trim().toLowerCase()));
  const columns: Column<Model>[] = [
    {
      key: 'model',
      header: t('prices.model'),
      render: (m) => (
        <Text size="sm" ff="monospace">
          {m.model}
        </Text>
      ),
    },
    { key: 'input', header: t('prices.inputShort'), numeric: true, render: (m) => usd(m.input) },
    { key: 'output', header: t('prices.outputShort'), numeric: true, render: (m) => usd(m.output) },
    { key: 'cached', header: t('prices.cachedShort'), numeric: true, render: (m) => usd(m.cached_input) },
    { key: 'req', header: t('prices.perRequest'), numeric: true, render: (m) => usd(m.per_request) },
  ];
  return (
    <>
      <PageHeader title={t('nav.models')}>
        {q.data && (
          <Group gap="xs">
            <Badge variant="light">{t('models.group', { group: q.data.group })}</Badge>
            <Badge variant="light" color="grape">
              {t('models.ratio', { ratio: q.data.group_ratio })}
            </Badge>
          </Group>
        )}
      </PageHeader>
      <TextInput label={t('models.search')} mb="md" maw={320} value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
      <Text size="sm" c="dimmed" mb="sm">
        {t('models.hint')}
      </Text>
      <DataTable
        label={t('nav.models')}
        columns={columns}
        rowKey={(m) => m.model}
        rows={rows}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
    </>
  );
}
