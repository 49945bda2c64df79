/**
 * A team's plan on its page (owners, admins and operators): the running plan with what each rolling
 * window used, and the plans on sale to buy or renew for the team, paid from the team's wallet
 * (POST /api/team/{id}/plan). The team's keys draw on it; members' own keys do not.
 */
import { Button, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { useApiMutation } from '../../components/useApiMutation';
import { Current, PlanTerms } from '../plans/MyPlanPage';

function OnSale({ teamId, plan, current }: { teamId: number; plan: Schemas['Plan']; current: boolean }) {
  const { t } = useTranslation();
  const buy = useApiMutation(
    () => call(client.POST('/api/team/{id}/plan', { params: { path: { id: teamId } }, body: { plan_id: plan.id } })),
    { invalidate: ['team'], notifyError: true, success: () => t('teams.planBought', { name: plan.name }) },
  );
  return (
    <Card withBorder component="article" aria-label={plan.name}>
      <PlanTerms plan={plan} badge={current ? t('teams.planCurrent') : null} />
      <Button onClick={() => buy.mutate(undefined)} loading={buy.isPending}>
        {current ? t('teams.planRenew') : t('teams.planBuy')}
      </Button>
    </Card>
  );
}

export function TeamPlan({ teamId }: { teamId: number }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['team', teamId, 'plan'],
    queryFn: () => call(client.GET('/api/team/{id}/plan', { params: { path: { id: teamId } } })),
  });
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('teams.planHelp')}
      </Text>
      {q.data && <Current mine={q.data} />}
      <Title order={3} size="h4">
        {t('plans.onSale')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {(q.data?.on_sale ?? []).map((p) => (
          <OnSale key={p.id} teamId={teamId} plan={p} current={q.data?.plan?.id === p.id} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
