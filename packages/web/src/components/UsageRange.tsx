/** The range and bucket of a usage view: preset ranges (24 h … 90 days) and hour/day buckets. */
import { Group, SegmentedControl } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

export type Bucket = 'hour' | 'day';
const RANGES = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30, '90d': 24 * 90 } as const;
export type RangeKey = keyof typeof RANGES;

export function useUsageRange(initial: RangeKey = '24h') {
  const [range, setRange] = useState<RangeKey>(initial);
  const [bucket, setBucket] = useState<Bucket>(initial === '24h' ? 'hour' : 'day');
  // the window is fixed when the range is chosen, so refetches ask for the same numbers
  const [anchor, setAnchor] = useState(() => Date.now());
  const window = useMemo(() => {
    const to = Math.ceil(anchor / 60_000) * 60_000;
    return { from: to - RANGES[range] * 3_600_000, to };
  }, [range, anchor]);
  return {
    range,
    bucket,
    ...window,
    setRange: (r: RangeKey) => {
      setRange(r);
      setBucket(r === '24h' || r === '7d' ? 'hour' : 'day');
      setAnchor(Date.now());
    },
    setBucket,
    refresh: () => setAnchor(Date.now()),
  };
}

export function UsageRangePicker({ state }: { state: ReturnType<typeof useUsageRange> }) {
  const { t } = useTranslation();
  return (
    <Group gap="xs">
      <SegmentedControl
        aria-label={t('usage.range')}
        value={state.range}
        onChange={(v) => state.setRange(v as RangeKey)}
        data={(Object.keys(RANGES) as RangeKey[]).map((k) => ({ value: k, label: t(`usage.ranges.${k}`) }))}
      />
      <SegmentedControl
        aria-label={t('usage.bucket')}
        value={state.bucket}
        onChange={(v) => state.setBucket(v as Bucket)}
        data={[
          { value: 'hour', label: t('usage.hour') },
          { value: 'day', label: t('usage.day') },
        ]}
      />
    </Group>
  );
}
