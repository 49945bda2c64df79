/** The user's overview: balance, what was spent and how many calls, where to send calls, and their usage over time. */
import { Anchor, Card, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { quotaPerUsd, useSelf } from '../../app/session';
import { useGatewayAddress } from '../../components/ApiAccess';
import { CopyField } from '../../components/CopyField';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { UsageRangePicker, useUsageRange } from '../../components/UsageRange';
import { StatCard, UsageView } from '../../components/UsageView';
import { fmtInt, fmtQuota, fmtUsd } from '../../lib/format';

export default function OverviewPage() {
  const { t } = useTranslation();
  const self = useSelf();
  const range = useUsageRange('7d');
  const usage = useQuery({
    queryKey: ['usage-self', range.from, range.to, range.bucket],
    queryFn: () =>
      call(
        client.GET('/api/usage/self', { params: { query: { from: range.from, to: range.to, bucket: range.bucket, group_by: 'model' } } }),
      ),
    placeholderData: keepPreviousData,
  });
  const u = self.data;
  const perUsd = quotaPerUsd(u);
  const base = useGatewayAddress();
  return (
    <Stack gap={0}>
      <PageHeader title={t('nav.overview')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="lg">
        <StatCard label={t('overview.balance')} value={fmtUsd(u?.quota_usd)} hint={t('overview.group', { group: u?.group ?? '' })} />
        <StatCard label={t('overview.spent')} value={fmtQuota(u?.used_quota, perUsd)} />
        <StatCard label={t('overview.requests')} value={fmtInt(u?.request_count)} />
      </SimpleGrid>
      <Card withBorder mb="lg" component="section" aria-label={t('access.title')}>
        <Title order={3} size="h5" mb="xs">
          {t('access.title')}
        </Title>
        <CopyField label={t('access.baseUrl')} value={`${base}/v1`} />
        <Text size="sm" mt="xs">
          {t('access.overviewHint')}{' '}
          <Anchor component={Link} to="/keys">
            {t('access.toKeys')}
          </Anchor>
        </Text>
      </Card>
      <PageHeader title={t('overview.usage')}>
        <UsageRangePicker state={range} />
      </PageHeader>
      {usage.error && !usage.data ? (
        <ErrorState error={usage.error} onRetry={() => void usage.refetch()} />
      ) : !usage.data ? (
        <Skeleton h={300} />
      ) : (
        <UsageView report={usage.data} bucket={range.bucket} perUsd={perUsd} groupTitle={t('usage.top.model')} showLatency={false} />
      )}
    </Stack>
  );
}
