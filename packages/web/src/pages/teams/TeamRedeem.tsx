/** Redeeming a redemption code into a team's wallet (team page; owners, admins and operators). */
import { Button, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconTicket } from '@tabler/icons-react';
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
