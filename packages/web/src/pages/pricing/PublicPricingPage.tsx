/**
 * The public models and prices page (/pricing, no login; the gateway's option PublicPricingEnabled):
 * each model a visitor may call with its price in each group, the group's ratio applied.
 */
import { Alert, Anchor, Container, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError, call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { PageLoader } from '../../components/PageLoader';

const usd = (v: number | null | undefined) => (v == null ? '—' : `$${v}`);

export default function PublicPricingPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['public-pricing'], retry: false, queryFn: () => call(client.GET('/api/pricing')) });
  const [search, setSearch] = useState('');
  const off = q.error instanceof ApiError && q.error.status === 404;
  const rows = (q.data?.models ?? [])
    .filter((m) => m.model.toLowerCase().includes(search.trim().toLowerCase()))
    .flatMap((m) => m.groups.map((g) => ({ model: m.model, group: g, price: m.prices[g] })));
  return (
    <Container size="lg" py="xl">
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          {t('pricing.title')}
        </Title>
        <Anchor component={Link} to="/login">
          {t('pricing.login')}
        </Anchor>
      </Group>
      {q.isPending ? (
        <PageLoader />
      ) : off ? (
        <Alert role="status">{t('pricing.off')}</Alert>
      ) : q.error ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <>
          <Text size="sm" c="dimmed" mb="sm">
            {t('pricing.hint')}
          </Text>
          <TextInput label={t('models.search')} mb="md" maw={320} value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
          <Table striped aria-label={t('pricing.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('prices.model')}</Table.Th>
                <Table.Th scope="col">{t('pricing.group')}</Table.Th>
                <Table.Th scope="col">{t('prices.inputShort')}</Table.Th>
                <Table.Th scope="col">{t('prices.outputShort')}</Table.Th>
                <Table.Th scope="col">{t('prices.cachedShort')}</Table.Th>
                <Table.Th scope="col">{t('prices.perRequest')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={`${r.model}\n${r.group}`}>
                  <Table.Td ff="monospace">{r.model}</Table.Td>
                  <Table.Td>{r.group}</Table.Td>
                  <Table.Td>{usd(r.price?.input)}</Table.Td>
                  <Table.Td>{usd(r.price?.output)}</Table.Td>
                  <Table.Td>{usd(r.price?.cached_input)}</Table.Td>
                  <Table.Td>{usd(r.price?.per_request)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {rows.length === 0 && (
            <Text size="sm" c="dimmed" mt="sm">
              {t('pricing.empty')}
            </Text>
          )}
        </>
      )}
    </Container>
  );
}
