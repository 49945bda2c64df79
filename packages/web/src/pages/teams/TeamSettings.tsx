/**
 * A team's settings (team page, operators): the models its keys may call, its group, its rate limits
 * and budget (docs/limits.md#teams), and what its owners and admins may do beyond managing members —
 * top up the wallet, read other members' request text.
 */
import { Button, Group, Stack, Switch, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { LimitFields, limitBody, limitValidators, type LimitValues } from '../../components/LimitFields';
import { useApiMutation } from '../../components/useApiMutation';
import type { Team } from './team-common';

type Values = LimitValues & { models: string; group: string; allow_admin_topup: boolean; share_bodies: boolean };

export function TeamSettings({ team }: { team: Team }) {
  const { t } = useTranslation();
  const form = useForm<Values>({
    initialValues: {
      // A team's limits are 0 for none; the form's are empty.
      rpm: team.rpm || '',
      tpm: team.tpm || '',
      max_concurrency: team.max_concurrency || '',
      budget_usd: team.budget_usd ?? '',
      budget_period: (team.budget_period ?? '') as LimitValues['budget_period'],
      models: (team.models ?? []).join(', '),
      group: team.group ?? '',
      allow_admin_topup: team.settings.allow_admin_topup ?? false,
      share_bodies: team.settings.share_bodies ?? false,
    },
    validate: limitValidators(t),
  });
  const save = useApiMutation(
    (x: Values) => {
      const limits = limitBody(x);
      const models = x.models
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      return call(
        client.PUT('/api/team/{id}', {
          params: { path: { id: team.id } },
          body: {
            models: models.length ? models : null,
            group: x.group.trim() || null,
            // A team's limits are 0 for none.
            rpm: limits.rpm ?? 0,
            tpm: limits.tpm ?? 0,
            max_concurrency: limits.max_concurrency ?? 0,
            budget_usd: limits.budget_usd,
            budget_period: limits.budget_period,
            settings: { allow_admin_topup: x.allow_admin_topup, share_bodies: x.share_bodies },
          },
        }),
      );
    },
    { invalidate: ['team', 'teams'], success: t('common.saved') },
  );
  return (
    <form onSubmit={form.onSubmit((x) => save.mutate(x))}>
      <Stack maw={720}>
        <TextInput label={t('teams.models')} description={t('teams.modelsHint')} {...form.getInputProps('models')} />
        <TextInput label={t('teams.group')} description={t('teams.groupHint')} {...form.getInputProps('group')} />
        <LimitFields form={form} />
        <Switch label={t('teams.allowAdminTopup')} {...form.getInputProps('allow_admin_topup', { type: 'checkbox' })} />
        <Switch label={t('teams.shareBodies')} {...form.getInputProps('share_bodies', { type: 'checkbox' })} />
        {save.error ? <ErrorState error={save.error} /> : null}
        <Group>
          <Button type="submit" loading={save.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
