/**
 * One team (/team/:id): its wallet and the caller's role, then tabs — members, keys, invitations and the
 * team's plan (owners and admins) and usage (per member and per day of the last 30 days). What a tab offers follows the
 * caller's role (operators also have the team's settings); the gateway checks every request again.
 */
import { Badge, Group, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { call, client } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { PageLoader } from '../../components/PageLoader';
import { fmtUsd } from '../../lib/format';
import { hasKeys, manages } from './team-common';
import { TeamInvitations } from './TeamInvitations';
import { TeamKeys } from './TeamKeys';
import { TeamMembers } from './TeamMembers';
import { TeamPlan } from './TeamPlan';
import { TeamPay, TeamRedeem } from './TeamRedeem';
import { TeamSettings } from './TeamSettings';

function Usage({ teamId }: { teamId: number }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['team', teamId, 'usage'],
    queryFn: () => call(client.GET('/api/team/{id}/usage', { params: { path: { id: teamId } } })),
  });
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return (
    <Stack>
      {q.data && <Text size="sm">{t('teams.usageTotals', { calls: q.data.totals.calls, usd: fmtUsd(q.data.totals.quota_usd) })}</Text>}
      <DataTable
        label={t('teams.usageByMember')}
        columns={[
          { key: 'user', header: t('teams.username'), render: (m) => m.username },
          { key: 'calls', header: t('teams.calls'), numeric: true, render: (m) => m.calls },
          { key: 'spent', header: t('teams.spent'), numeric: true, render: (m) => fmtUsd(m.quota_usd) },
          { key: 'tokens', header: t('teams.tokens'), numeric: true, render: (m) => m.prompt_tokens + m.completion_tokens },
        ]}
        rows={q.data?.members}
        rowKey={(m) => m.user_id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      <DataTable
        label={t('teams.usageByDay')}
        columns={[
          { key: 'day', header: t('teams.day'), render: (d) => day(d.day) },
          { key: 'calls', header: t('teams.calls'), numeric: true, render: (d) => d.calls },
          { key: 'spent', header: t('teams.spent'), numeric: true, render: (d) => fmtUsd(d.quota_usd) },
        ]}
        rows={q.data?.days}
        rowKey={(d) => d.day}
        loading={q.isLoading}
        error={q.error}
      />
    </Stack>
  );
}

export default function TeamPage() {
  const { t } = useTranslation();
  const id = Number(useParams().id);
  const q = useQuery({
    queryKey: ['team', id],
    queryFn: () => call(client.GET('/api/team/{id}', { params: { path: { id } } })),
    enabled: Number.isInteger(id) && id > 0,
  });
  if (!Number.isInteger(id) || id <= 0) return <ErrorState error={new Error(t('teams.notFound'))} />;
  if (q.isLoading) return <PageLoader />;
  if (q.error || !q.data) return <ErrorState error={q.error ?? new Error(t('teams.notFound'))} onRetry={() => void q.refetch()} />;
  const team = q.data;
  const standing = team.my_role;
  return (
    <>
      <PageHeader title={team.name}>
        {standing && <Badge variant="light">{t(`teams.standing.${standing}`)}</Badge>}
        {manages(standing) && <TeamRedeem teamId={id} />}
        {manages(standing) && <TeamPay teamId={id} />}
      </PageHeader>
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
        <Group gap="xs">
          <Text c="dimmed" size="sm">
            {t('teams.wallet')}
          </Text>
          <Text fw={600}>{fmtUsd(team.quota_usd)}</Text>
        </Group>
        <Group gap="xs">
          <Text c="dimmed" size="sm">
            {t('teams.used')}
          </Text>
          <Text fw={600}>{fmtUsd(team.used_quota_usd)}</Text>
        </Group>
        <Group gap="xs">
          <Text c="dimmed" size="sm">
            {t('teams.requests')}
          </Text>
          <Text fw={600}>{team.request_count}</Text>
        </Group>
      </SimpleGrid>
      <Tabs defaultValue={standing === 'viewer' ? 'usage' : 'members'} keepMounted={false}>
        <Tabs.List mb="md">
          {standing !== 'viewer' && <Tabs.Tab value="members">{t('teams.members')}</Tabs.Tab>}
          {hasKeys(standing) && <Tabs.Tab value="keys">{t('teams.keys')}</Tabs.Tab>}
          {manages(standing) && <Tabs.Tab value="invitations">{t('teams.invitations')}</Tabs.Tab>}
          {manages(standing) && <Tabs.Tab value="plan">{t('teams.plan')}</Tabs.Tab>}
          <Tabs.Tab value="usage">{t('teams.usage')}</Tabs.Tab>
          {standing === 'operator' && <Tabs.Tab value="settings">{t('teams.settings')}</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="members">
          <TeamMembers teamId={id} standing={standing} />
        </Tabs.Panel>
        <Tabs.Panel value="keys">
          <TeamKeys teamId={id} standing={standing} />
        </Tabs.Panel>
        <Tabs.Panel value="invitations">
          <TeamInvitations teamId={id} />
        </Tabs.Panel>
        <Tabs.Panel value="plan">
          <TeamPlan teamId={id} />
        </Tabs.Panel>
        <Tabs.Panel value="usage">
          <Usage teamId={id} />
        </Tabs.Panel>
        <Tabs.Panel value="settings">
          <TeamSettings team={team} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
