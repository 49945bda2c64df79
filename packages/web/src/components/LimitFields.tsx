/**
 * The rate limits and period budget a key and a user share (docs/limits.md): form values, the request
 * body they make, the fields of the edit forms and a one-line summary for the tables.
 */
import { Fieldset, NumberInput, Select, SimpleGrid, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Schemas } from '../api/client';
import { fmtInt, fmtTime, fmtUsd } from '../lib/format';

type Period = 'day' | 'week' | 'month';
type Row = Pick<
  Schemas['Key'],
  'rpm' | 'tpm' | 'max_concurrency' | 'budget_usd' | 'budget_period' | 'budget_spent_usd' | 'budget_resets_at'
>;

export interface LimitValues {
  rpm: number | string;
  tpm: number | string;
  max_concurrency: number | string;
  budget_usd: number | string;
  budget_period: Period | '';
}

export const limitValues = (row: Row | null | undefined): LimitValues => ({
  rpm: row?.rpm ?? '',
  tpm: row?.tpm ?? '',
  max_concurrency: row?.max_concurrency ?? '',
  budget_usd: row?.budget_usd ?? '',
  budget_period: row?.budget_period ?? '',
});

const orNull = (v: number | string) => (v === '' || Number(v) <= 0 ? null : Number(v));

/** The request fields of the values: empty is "no limit", no budget clears its period too. */
export const limitBody = (v: LimitValues) => ({
  rpm: orNull(v.rpm),
  tpm: orNull(v.tpm),
  max_concurrency: orNull(v.max_concurrency),
  ...(v.budget_usd === ''
    ? { budget_usd: null, budget_period: null }
    : { budget_usd: Number(v.budget_usd), budget_period: (v.budget_period || null) as Period | null }),
});

export const limitValidators = (t: TFunction) => ({
  rpm: (x: number | string) => (x !== '' && Number(x) < 0 ? t('validation.nonNegative') : null),
  tpm: (x: number | string) => (x !== '' && Number(x) < 0 ? t('validation.nonNegative') : null),
  max_concurrency: (x: number | string) => (x !== '' && Number(x) < 0 ? t('validation.nonNegative') : null),
  budget_usd: (x: number | string) => (x !== '' && Number(x) < 0 ? t('validation.nonNegative') : null),
  budget_period: (x: string, all: { budget_usd: number | string }) => (all.budget_usd !== '' && !x ? t('limits.periodRequired') : null),
});

export function LimitFields<T extends LimitValues>({ form, row }: { form: UseFormReturnType<T>; row?: Row | null }) {
  const { t } = useTranslation();
  const periods: Period[] = ['day', 'week', 'month'];
  // The select's "none" is null; the form keeps ''.
  const period = form.getInputProps('budget_period');
  return (
    <Fieldset legend={t('limits.section')}>
      <Text size="xs" c="dimmed" mb="xs">
        {t('limits.sectionHint')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <NumberInput label={t('limits.rpm')} min={0} allowDecimal={false} thousandSeparator="," {...form.getInputProps('rpm')} />
        <NumberInput label={t('limits.tpm')} min={0} allowDecimal={false} thousandSeparator="," {...form.getInputProps('tpm')} />
        <NumberInput label={t('limits.concurrency')} min={0} allowDecimal={false} {...form.getInputProps('max_concurrency')} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 2 }} mt="sm">
        <NumberInput label={t('limits.budget')} prefix="$" min={0} decimalScale={6} {...form.getInputProps('budget_usd')} />
        <Select
          label={t('limits.period')}
          clearable
          data={periods.map((p) => ({ value: p, label: t(`limits.${p}`) }))}
          {...period}
          value={period.value || null}
          onChange={(v) => period.onChange(v ?? '')}
        />
      </SimpleGrid>
      {row?.budget_usd != null && row.budget_spent_usd != null && (
        <Text size="sm" mt="xs">
          {t('limits.spent', { spent: fmtUsd(row.budget_spent_usd), budget: fmtUsd(row.budget_usd), at: fmtTime(row.budget_resets_at) })}
        </Text>
      )}
    </Fieldset>
  );
}

/** "60 rpm · 100,000 tpm · 4 at once · $5.00/day ($1.20)" — or "None". */
export function limitSummary(t: TFunction, r: Row): string {
  const parts: string[] = [];
  if (r.rpm) parts.push(t('limits.rpmShort', { n: fmtInt(r.rpm) }));
  if (r.tpm) parts.push(t('limits.tpmShort', { n: fmtInt(r.tpm) }));
  if (r.max_concurrency) parts.push(t('limits.ccShort', { n: fmtInt(r.max_concurrency) }));
  if (r.budget_usd != null && r.budget_period) {
    const per = r.budget_period === 'day' ? 'limits.perDay' : r.budget_period === 'week' ? 'limits.perWeek' : 'limits.perMonth';
    parts.push(`${t(per, { usd: fmtUsd(r.budget_usd) })}${r.budget_spent_usd != null ? ` (${fmtUsd(r.budget_spent_usd)})` : ''}`);
  }
  return parts.length ? parts.join(' · ') : t('limits.none');
}
