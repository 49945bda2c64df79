/** My teams (every user): the teams I belong to with my role, each opening its team page. */
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call, client } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { fmtUsd } from '../../lib/format';

export function useMyTeams() {
  return useQuery({ queryKey: ['teams', 'mine'], queryFn: () => call(client.GET('/api/user/teams')) });
}

export default function MyTeamsPage() {
  const { t } = useTranslation();
  const q = useMyTeams();
  return (
    <>
      <PageHeader title={t('nav.myTeams')} />
      <DataTable
        label={t('nav.myTeams')}
        columns={[
          {
            key: 'name',
            header: t('teams.name'),
            render: (x) => (
              <Text component={Link} to={`/team/${x.id}`} fw={500} c="blue">
                {x.name}
              </Text>
            ),
          },
          { key: 'role', header: t('teams.role'), render: (x) => (x.my_role ? t(`teams.standing.${x.my_role}`) : '—') },
          { key: 'wallet', header: t('teams.wallet'), numeric: true, render: (x) => fmtUsd(x.quota_usd) },
        ]}
        rows={q.data}
        rowKey={(x) => x.id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
        empty={t('teams.noTeams')}
      />
    </>
  );
}
