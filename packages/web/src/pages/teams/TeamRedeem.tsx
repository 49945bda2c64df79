/**
 * Money into a team's wallet from its page (owners, admins and operators): redeem a redemption code, or
 * pay online when the gateway has a payment provider (the checkout comes back to the team's page).
 */
import { Button, NumberInput, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { IconCreditCard, IconTicket } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { FormModal } from '../../components/FormModal';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtUsd } from '../../lib/format';

export function TeamRedeem({ teamId }: { teamId: number }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const form = useForm({ initialValues: { key: '' }, validate: { key: (x) => (x.trim() ? null : t('validation.required')) } });
  const redeem = useApiMutation(
    (x: { key: string }) => call(client.POST('/api/team/{id}/redeem', { params: { path: { id: teamId } }, body: { key: x.key.trim() } })),
    {
      invalidate: ['team', 'teams'],
      success: (r) => t('teams.redeemed', { usd: fmtUsd(r.quota_usd) }),
      onSuccess: () => {
        form.reset();
        setOpen(false);
      },
    },
  );
  return (
    <>
      <Button variant="default" leftSection={<IconTicket size={16} />} onClick={() => setOpen(true)}>
        {t('teams.redeem')}
      </Button>
      {open && (
        <FormModal
          form={form}
          opened
          onClose={() => setOpen(false)}
          title={t('teams.redeem')}
          onSubmit={form.onSubmit((x) => redeem.mutate(x))}
          error={redeem.error}
          pending={redeem.isPending}
          submitLabel={t('teams.redeemSubmit')}
        >
          <TextInput label={t('teams.code')} required autoComplete="off" {...form.getInputProps('key')} />
        </FormModal>
      )}
    </>
  );
}

/** Pay into the team's wallet online (Stripe), when the gateway offers it. */
export function TeamPay({ teamId }: { teamId: number }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const info = useQuery({ queryKey: ['topup-info'], queryFn: () => call(client.GET('/api/user/topup/info')) });
  const form = useForm<{ amount: number | string }>({
    initialValues: { amount: 10 },
    validate: {
      amount: (x) =>
        info.data && (x === '' || Number(x) < info.data.minAmount || Number(x) > info.data.maxAmount)
          ? t('topup.amountRange', { min: info.data.minAmount, max: info.data.maxAmount, currency: info.data.currency.toUpperCase() })
          : null,
    },
  });
  const pay = useApiMutation(
    (x: { amount: number | string }) =>
      call(client.POST('/api/team/{id}/stripe/pay', { params: { path: { id: teamId } }, body: { amount: Number(x.amount) } })),
    { onSuccess: (d) => window.location.assign(d.url) },
  );
  if (!info.data?.providers.includes('stripe')) return null;
  const cur = info.data.currency.toUpperCase();
  return (
    <>
      <Button variant="default" leftSection={<IconCreditCard size={16} />} onClick={() => setOpen(true)}>
        {t('teams.pay')}
      </Button>
      {open && (
        <FormModal
          form={form}
          opened
          onClose={() => setOpen(false)}
          title={t('teams.pay')}
          onSubmit={form.onSubmit((x) => pay.mutate(x))}
          error={pay.error}
          pending={pay.isPending}
          submitLabel={t('topup.pay')}
        >
          <NumberInput
            label={t('topup.amount', { currency: cur })}
            min={info.data.minAmount}
            max={info.data.maxAmount}
            decimalScale={2}
            required
            {...form.getInputProps('amount')}
          />
        </FormModal>
      )}
    </>
  );
}
