/**
 * Wallet: the balance, redeeming a code (POST /api/user/topup), paying online when a provider is
 * configured (POST /api/user/stripe/pay, then Stripe's page) and the user's payments.
 */
import { Alert, Badge, Button, Card, Group, NumberInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { call, client, type Schemas } from '../../api/client';
import { SELF_KEY, quotaPerUsd, useSelf } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { StatCard } from '../../components/UsageView';
import { useApiMutation } from '../../components/useApiMutation';
import { usePagedQuery } from '../../components/usePagedQuery';
import { fmtQuota, fmtTime, fmtUsd } from '../../lib/format';

type Payment = Schemas['Payment'];
const PAYMENT_COLORS: Record<string, string> = { pending: 'blue', paid: 'green', expired: 'gray' };

function RedeemCard() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [done, setDone] = useState<string | null>(null);
  const form = useForm({ initialValues: { key: '' }, validate: { key: (x) => (x.trim() ? null : t('validation.required')) } });
  const redeem = useApiMutation((x: { key: string }) => call(client.POST('/api/user/topup', { body: { key: x.key.trim() } })), {
    onSuccess: (d) => {
      setDone(t('topup.redeemed', { amount: fmtUsd(d.quota_usd) }));
      form.reset();
      void qc.invalidateQueries({ queryKey: SELF_KEY });
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="redeem-title">
      <Title order={3} size="h4" id="redeem-title" mb="sm">
        {t('topup.redeemTitle')}
      </Title>
      <form
        onSubmit={form.onSubmit((x) => {
          setDone(null);
          redeem.mutate(x);
        })}
        noValidate
        aria-label={t('topup.redeemTitle')}
      >
        <Stack>
          <Text size="sm">{t('topup.redeemHint')}</Text>
          {redeem.error && (
            <Alert color="red" role="alert">
              {redeem.error.message}
            </Alert>
          )}
          {done && (
            <Alert color="green" role="status">
              {done}
            </Alert>
          )}
          <TextInput
            label={t('topup.code')}
            autoComplete="off"
            spellCheck={false}
            required
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            {...form.getInputProps('key')}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={redeem.isPending}>
              {t('topup.redeem')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function PayCard({ info, perUsd }: { info: Schemas['TopupInfo']; perUsd: number }) {
  const { t } = useTranslation();
  const cur = info.currency.toUpperCase();
  const form = useForm<{ amount: number | string }>({
    initialValues: { amount: Math.max(info.minAmount, 10) <= info.maxAmount ? Math.max(info.minAmount, 10) : info.minAmount },
    validate: {
      amount: (x) =>
        x === '' || Number(x) < info.minAmount || Number(x) > info.maxAmount
          ? t('topup.amountRange', { min: info.minAmount, max: info.maxAmount, currency: cur })
          : null,
    },
  });
  const pay = useApiMutation(
    (x: { amount: number | string }) => call(client.POST('/api/user/stripe/pay', { body: { amount: Number(x.amount) } })),
    {
      onSuccess: (d) => {
        window.location.assign(d.url);
      },
    },
  );
  const amount = Number(form.values.amount) || 0;
  return (
    <Card withBorder component="section" aria-labelledby="pay-title">
      <Title order={3} size="h4" id="pay-title" mb="sm">
        {t('topup.payTitle')}
      </Title>
      <form onSubmit={form.onSubmit((x) => pay.mutate(x))} noValidate aria-label={t('topup.payTitle')}>
        <Stack>
          <Text size="sm">{t('topup.payHint', { currency: cur })}</Text>
          {pay.error && (
            <Alert color="red" role="alert">
              {pay.error.message}
            </Alert>
          )}
          <NumberInput
            label={t('topup.amount', { currency: cur })}
            min={info.minAmount}
            max={info.maxAmount}
            decimalScale={2}
            required
            {...form.getInputProps('amount')}
          />
          <Text size="sm" c="dimmed">
            {t('topup.buys', { amount: fmtQuota(Math.round(amount * info.quotaPerUnit), perUsd) })}
          </Text>
          <Group justify="flex-end">
            <Button type="submit" loading={pay.isPending}>
              {t('topup.pay')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

export default function WalletPage() {
  const { t } = useTranslation();
  const self = useSelf();
  const [params] = useSearchParams();
  const u = self.data;
  const perUsd = quotaPerUsd(u);
  const info = useQuery({ queryKey: ['topup-info'], queryFn: () => call(client.GET('/api/user/topup/info')) });
  const list = usePagedQuery<Payment, Record<string, never>>('payments', {}, (q) =>
    call(client.GET('/api/user/payments', { params: { query: { page: q.page, page_size: q.page_size } } })),
  );
  const returned = params.get('payment');
  const columns: Column<Payment>[] = [
    { key: 'created', header: t('topup.created'), render: (p) => fmtTime(p.created_at) },
    { key: 'amount', header: t('topup.paid'), numeric: true, render: (p) => `${p.amount} ${p.currency.toUpperCase()}` },
    { key: 'quota', header: t('topup.credit'), numeric: true, render: (p) => fmtQuota(p.quota, perUsd) },
    {
      key: 'status',
      header: t('topup.status'),
      render: (p) => (
        <Badge variant="dot" color={PAYMENT_COLORS[p.status] ?? 'gray'}>
          {t(`topup.payment.${p.status}` as 'topup.payment.paid')}
        </Badge>
      ),
    },
    { key: 'provider', header: t('topup.provider'), render: (p) => p.provider },
    {
      key: 'trade',
      header: t('topup.tradeNo'),
      render: (p) => (
        <Text size="xs" ff="monospace">
          {p.trade_no}
        </Text>
      ),
    },
  ];
  const providers = info.data?.providers ?? [];
  return (
    <Stack gap={0}>
      <PageHeader title={t('topup.navWallet')} />
      {returned && (
        <Alert color={returned === 'cancelled' ? 'gray' : 'blue'} mb="md" role="status">
          {returned === 'cancelled' ? t('topup.cancelled') : t('topup.returned')}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }} mb="lg">
        <StatCard label={t('overview.balance')} value={fmtUsd(u?.quota_usd)} />
        <StatCard label={t('overview.spent')} value={fmtQuota(u?.used_quota, perUsd)} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} mb="lg">
        <RedeemCard />
        {info.data && providers.includes('stripe') ? (
          <PayCard info={info.data} perUsd={perUsd} />
        ) : (
          <Card withBorder component="section" aria-labelledby="pay-title">
            <Title order={3} size="h4" id="pay-title" mb="sm">
              {t('topup.payTitle')}
            </Title>
            <Text size="sm" c="dimmed">
              {t('topup.payOff')}
            </Text>
          </Card>
        )}
      </SimpleGrid>
      <Title order={3} size="h4" mb="sm">
        {t('topup.history')}
      </Title>
      <DataTable label={t('topup.history')} columns={columns} rowKey={(p) => p.id} empty={t('topup.noPayments')} {...list.table} />
    </Stack>
  );
}
