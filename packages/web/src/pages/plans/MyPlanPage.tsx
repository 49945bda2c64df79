/**
 * My plan (every user): the running plan, what each rolling usage window used (its last `every`), when
 * its oldest spend leaves it and when it is whole again, and the
 * plans on sale to buy or renew from the balance (POST /api/user/plan) or with Stripe, once or as a
 * subscription (POST /api/user/plan/stripe/pay, then Stripe's page).
 */
import { Alert, Badge, Button, Card, Group, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { SELF_KEY } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime, fmtUsd } from '../../lib/format';

type Plan = Schemas['Plan'];

/** The running plan and its windows' use (also a team's, on the team's page). */
export function Current({ mine }: { mine: Schemas['MyPlan'] }) {
  const { t } = useTranslation();
  if (!mine.plan || !mine.subscription) return <Alert color="gray">{t('plans.none')}</Alert>;
  return (
    <Card withBorder component="section" aria-labelledby="current-plan">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4" id="current-plan">
          {mine.plan.name}
        </Title>
        <Text size="sm">{t('plans.until', { time: fmtTime(mine.subscription.expires_at) })}</Text>
      </Group>
      <Stack gap="sm">
        {mine.windows.map((w) => (
          <Stack key={w.every} gap={4} role="group" aria-label={t('plans.windowOf', { every: w.every })}>
            <Group justify="space-between">
              <Text size="sm" fw={500}>
                {t('plans.windowOf', { every: w.every })}
              </Text>
              <Text size="sm">{t('plans.used', { used: fmtUsd(w.used_usd), quota: fmtUsd(w.quota_usd) })}</Text>
            </Group>
            <Progress
              value={w.quota > 0 ? Math.min(100, (w.used / w.quota) * 100) : 100}
              aria-label={t('plans.windowOf', { every: w.every })}
            />
            <Text size="xs" c="dimmed">
              {w.resets_at === null || w.clears_at === null
                ? t('plans.rollingEmpty', { every: w.every })
                : t('plans.resets', { time: fmtTime(w.resets_at), clears: fmtTime(w.clears_at) })}
            </Text>
          </Stack>
        ))}
      </Stack>
    </Card>
  );
}

/** A plan's name (with a badge when given), price per period, windows and models: what a card on sale shows. */
export function PlanTerms({ plan, badge }: { plan: Plan; badge: string | null }) {
  const { t } = useTranslation();
  return (
    <>
      <Group justify="space-between">
        <Title order={4}>{plan.name}</Title>
        {badge && <Badge>{badge}</Badge>}
      </Group>
      <Text size="lg" fw={600} mt="xs">
        {t('plans.pricePer', { price: fmtUsd(plan.price_usd), days: plan.duration_days })}
      </Text>
      <Stack gap={2} my="sm">
        {plan.windows.map((w) => (
          <Text size="sm" key={w.every}>
            {t('plans.windowLine', { quota: fmtUsd(w.quota_usd), every: w.every })}
          </Text>
        ))}
        <Text size="xs" c="dimmed">
          {plan.models ? plan.models.join(', ') : t('plans.allModels')}
        </Text>
      </Stack>
    </>
  );
}

function OnSale({ plan, current, stripe }: { plan: Plan; current: boolean; stripe: boolean }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const buy = useApiMutation(() => call(client.POST('/api/user/plan', { body: { plan_id: plan.id } })), {
    invalidate: ['my-plan'],
    notifyError: true,
    onSuccess: () => void qc.invalidateQueries({ queryKey: SELF_KEY }),
  });
  const pay = useApiMutation(
    (recurring: boolean) =>
      call(
        client.POST('/api/user/plan/{provider}/pay', { params: { path: { provider: 'stripe' } }, body: { plan_id: plan.id, recurring } }),
      ),
    { notifyError: true, onSuccess: (d) => window.location.assign(d.url) },
  );
  return (
    <Card withBorder component="article" aria-label={plan.name}>
      <PlanTerms plan={plan} badge={current ? t('plans.yours') : null} />
      <Group>
        <Button onClick={() => buy.mutate(undefined)} loading={buy.isPending}>
          {current ? t('plans.renew') : t('plans.buy')}
        </Button>
        {stripe && (
          <Button variant="default" onClick={() => pay.mutate(true)} loading={pay.isPending}>
            {t('plans.subscribe')}
          </Button>
        )}
      </Group>
    </Card>
  );
}

export default function MyPlanPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['my-plan'], queryFn: () => call(client.GET('/api/user/plan')) });
  const info = useQuery({ queryKey: ['topup-info'], queryFn: () => call(client.GET('/api/user/topup/info')) });
  const stripe = !!info.data?.providers.includes('stripe');
  return (
    <>
      <PageHeader title={t('nav.myPlan')} />
      <Stack>
        {q.data && <Current mine={q.data} />}
        <Title order={3} size="h4">
          {t('plans.onSale')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {(q.data?.on_sale ?? []).map((p) => (
            <OnSale key={p.id} plan={p} current={q.data?.plan?.id === p.id} stripe={stripe} />
          ))}
        </SimpleGrid>
      </Stack>
    </>
  );
}
