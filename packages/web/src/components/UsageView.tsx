/**
 * A usage report on screen: totals as cards, requests/errors, tokens, spend and latency over time,
 * the prompt cache (hit rate, write spend, saving against uncached prices), and the top groups
 * (models, users, channels or keys). Shared by the dashboard and the overview.
 */
import '@mantine/charts/styles.css';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Card, SimpleGrid, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/client';
import { fmtBucket, fmtInt, fmtMs, fmtPct, fmtQuota, fmtUsd } from '../lib/format';
import type { Bucket } from './UsageRange';

export function StatCard({ label, value, hint }: { label: string; value: ReactNode; hint?: ReactNode }) {
  return (
    <Card withBorder padding="md" role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz={24} fw={700} mt={4}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Card>
  );
}

function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder padding="md" component="section" aria-label={title}>
      <Title order={3} size="h5" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

export function UsageView({
  report,
  bucket,
  perUsd,
  groupTitle,
  showLatency = true,
}: {
  report: Schemas['UsageReport'];
  bucket: Bucket;
  perUsd: number;
  groupTitle: string;
  showLatency?: boolean;
}) {
  const { t } = useTranslation();
  const { totals, series, groups } = report;
  // Administrators' reports carry what the calls cost upstream: revenue, cost and margin side by side.
  const costs = groups.some((g) => g.upstream_cost !== undefined);
  const data = series.map((p) => ({
    t: fmtBucket(p.t, bucket),
    [t('usage.requests')]: p.requests,
    [t('usage.errors')]: p.errors,
    [t('usage.promptTokens')]: p.prompt_tokens,
    [t('usage.completionTokens')]: p.completion_tokens,
    [t('usage.spend')]: Number((p.quota / perUsd).toFixed(6)),
    p50: p.p50_ms ?? null,
    p95: p.p95_ms ?? null,
    hit: p.cache_hit_rate == null ? null : Number((p.cache_hit_rate * 100).toFixed(2)),
  }));
  const hitPct = (x: number | null) => (x == null ? '—' : fmtPct(x));
  const errorRate = totals.requests ? totals.errors / totals.requests : 0;
  const noData = series.length === 0;
  return (
    <>
      <SimpleGrid cols={{ base: 2, md: showLatency ? 6 : 4 }} mb="md">
        <StatCard label={t('usage.requests')} value={fmtInt(totals.requests)} />
        <StatCard
          label={t('usage.tokens')}
          value={fmtInt(totals.prompt_tokens + totals.completion_tokens)}
          hint={`${fmtInt(totals.prompt_tokens)} / ${fmtInt(totals.completion_tokens)}`}
        />
        <StatCard label={t('usage.spend')} value={fmtUsd(totals.quota_usd)} />
        <StatCard label={t('usage.errorRate')} value={fmtPct(errorRate)} hint={t('usage.errorsCount', { count: totals.errors })} />
        {showLatency && <StatCard label={t('usage.p50')} value={fmtMs(totals.p50_ms)} />}
        {showLatency && <StatCard label={t('usage.p95')} value={fmtMs(totals.p95_ms)} />}
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md" component="section" aria-label={t('usage.cacheTitle')}>
        <StatCard
          label={t('usage.cacheHitRate')}
          value={hitPct(totals.cache_hit_rate)}
          hint={t('usage.cacheHitHint', { cached: fmtInt(totals.cached_tokens), prompt: fmtInt(totals.prompt_tokens) })}
        />
        <StatCard
          label={t('usage.cacheWrites')}
          value={fmtUsd(totals.cache_write_usd)}
          hint={t('usage.cacheWritesHint', { tokens: fmtInt(totals.cache_write_tokens) })}
        />
        <StatCard label={t('usage.cacheSaving')} value={fmtUsd(totals.cache_saving_usd)} hint={t('usage.cacheSavingHint')} />
      </SimpleGrid>
      {noData ? (
        <Text c="dimmed" mb="md">
          {t('usage.noData')}
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 1, lg: 2 }} mb="md">
          <ChartCard title={t('usage.requestsOverTime')}>
            <AreaChart
              h={220}
              data={data}
              dataKey="t"
              withLegend
              curveType="monotone"
              series={[
                { name: t('usage.requests'), color: 'blue.6' },
                { name: t('usage.errors'), color: 'red.6' },
              ]}
            />
          </ChartCard>
          <ChartCard title={t('usage.tokensOverTime')}>
            <BarChart
              h={220}
              data={data}
              dataKey="t"
              type="stacked"
              withLegend
              series={[
                { name: t('usage.promptTokens'), color: 'teal.6' },
                { name: t('usage.completionTokens'), color: 'grape.6' },
              ]}
            />
          </ChartCard>
          <ChartCard title={t('usage.spendOverTime')}>
            <AreaChart
              h={220}
              data={data}
              dataKey="t"
              curveType="monotone"
              valueFormatter={(v) => fmtUsd(v)}
              yAxisProps={{ width: 72 }}
              series={[{ name: t('usage.spend'), color: 'orange.6' }]}
            />
          </ChartCard>
          <ChartCard title={t('usage.cacheOverTime')}>
            <LineChart
              h={220}
              data={data}
              dataKey="t"
              connectNulls
              valueFormatter={(v) => `${v}%`}
              yAxisProps={{ width: 56, domain: [0, 100] }}
              series={[{ name: 'hit', label: t('usage.cacheHitRate'), color: 'lime.7' }]}
            />
          </ChartCard>
          {showLatency && (
            <ChartCard title={t('usage.latencyOverTime')}>
              <LineChart
                h={220}
                data={data}
                dataKey="t"
                withLegend
                connectNulls
                valueFormatter={(v) => fmtMs(v)}
                yAxisProps={{ width: 72 }}
                series={[
                  { name: 'p50', label: t('usage.p50'), color: 'cyan.6' },
                  { name: 'p95', label: t('usage.p95'), color: 'pink.6' },
                ]}
              />
            </ChartCard>
          )}
        </SimpleGrid>
      )}
      <ChartCard title={groupTitle}>
        <Table aria-label={groupTitle} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('usage.name')}</Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.requests')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.errors')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.tokens')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {costs ? t('usage.revenue') : t('usage.spend')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.cacheHitRate')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.cacheWrites')}
              </Table.Th>
              <Table.Th scope="col" ta="right">
                {t('usage.cacheSaving')}
              </Table.Th>
              {costs && (
                <>
                  <Table.Th scope="col" ta="right">
                    {t('usage.upstreamCost')}
                  </Table.Th>
                  <Table.Th scope="col" ta="right">
                    {t('usage.margin')}
                  </Table.Th>
                </>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {groups.map((g) => (
              <Table.Tr key={g.key}>
                <Table.Td>{g.label || g.key}</Table.Td>
                <Table.Td ta="right">{fmtInt(g.requests)}</Table.Td>
                <Table.Td ta="right">{fmtInt(g.errors)}</Table.Td>
                <Table.Td ta="right">{fmtInt(g.tokens)}</Table.Td>
                <Table.Td ta="right">{fmtQuota(g.quota, perUsd)}</Table.Td>
                <Table.Td ta="right">{hitPct(g.cache_hit_rate)}</Table.Td>
                <Table.Td ta="right">{fmtQuota(g.cache_write_quota, perUsd)}</Table.Td>
                <Table.Td ta="right">{fmtQuota(g.cache_saving_quota, perUsd)}</Table.Td>
                {costs && (
                  <>
                    <Table.Td ta="right">{fmtQuota(g.upstream_cost ?? 0, perUsd)}</Table.Td>
                    <Table.Td ta="right">{fmtQuota(g.margin ?? 0, perUsd)}</Table.Td>
                  </>
                )}
              </Table.Tr>
            ))}
            {groups.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={costs ? 10 : 8}>
                  <Text c="dimmed" ta="center">
                    {t('usage.noData')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </ChartCard>
      {groups.length > 0 && (
        <ChartCard title={t('usage.topChart', { what: groupTitle })}>
          <BarChart
            h={Math.max(160, groups.slice(0, 10).length * 32)}
            orientation="vertical"
            dataKey="name"
            yAxisProps={{ width: 140 }}
            data={groups.slice(0, 10).map((g) => ({ name: g.label || g.key, [t('usage.requests')]: g.requests }))}
            series={[{ name: t('usage.requests'), color: 'blue.6' }]}
          />
        </ChartCard>
      )}
    </>
  );
}
