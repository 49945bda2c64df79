/** Operator dashboard: usage of the whole gateway over a range, grouped by model, user, channel or key. */
import { Button, SegmentedControl, Skeleton, Stack } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { isRoot, quotaPerUsd, useSelf } from '../../app/session';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { UsageRangePicker, useUsageRange } from '../../components/UsageRange';
import { UsageView } from '../../components/UsageView';
import { GuardrailVerdicts } from '../guardrails/GuardrailVerdicts';

type GroupBy = 'model' | 'user' | 'channel' | 'key';

export default function DashboardPage() {
  const { t } = useTranslation();
  const self = useSelf();
  const range = useUsageRange('24h');
  const [groupBy, setGroupBy] = useState<GroupBy>('model');
  const usage = useQuery({
    queryKey: ['usage', range.from, range.to, range.bucket, groupBy],
    queryFn: () =>
      call(client.GET('/api/usage', { params: { query: { from: range.from, to: range.to, bucket: range.bucket, group_by: groupBy } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap={0}>
      <PageHeader title={t('nav.dashboard')}>
        <UsageRangePicker state={range} />
        <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={range.refresh} loading={usage.isFetching}>
          {t('common.refresh')}
        </Button>
      </PageHeader>
      <SegmentedControl
        mb="md"
        aria-label={t('usage.groupBy')}
        value={groupBy}
        onChange={(v) => setGroupBy(v as GroupBy)}
        w="fit-content"
        data={(['model', 'user', 'channel', 'key'] as const).map((g) => ({ value: g, label: t(`usage.by.${g}`) }))}
      />
      {usage.error && !usage.data ? (
        <ErrorState error={usage.error} onRetry={() => void usage.refetch()} />
      ) : !usage.data ? (
        <Skeleton h={400} />
      ) : (
        <UsageView report={usage.data} bucket={range.bucket} perUsd={quotaPerUsd(self.data)} groupTitle={t(`usage.top.${groupBy}`)} />
      )}
      {isRoot(self.data) && <GuardrailVerdicts />}
    </Stack>
  );
}
