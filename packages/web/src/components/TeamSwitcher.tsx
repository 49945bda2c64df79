/**
 * The team switcher in the console's header, for a user in at least one team: "Personal" (the user's
 * own keys and balance) or one of the teams (its page, whose keys the team's wallet pays).
 */
import { Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { call, client } from '../api/client';

export function TeamSwitcher() {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const q = useQuery({ queryKey: ['teams', 'mine'], queryFn: () => call(client.GET('/api/user/teams')), retry: false });
  if (!q.data?.length) return null;
  const current = /^\/team\/(\d+)/.exec(location.pathname)?.[1] ?? 'personal';
  return (
    <Select
      aria-label={t('teams.switcher')}
      size="xs"
      w={180}
      allowDeselect={false}
      value={current}
      data={[{ value: 'personal', label: t('teams.personal') }, ...q.data.map((x) => ({ value: String(x.id), label: x.name }))]}
      onChange={(v) => void navigate(v && v !== 'personal' ? `/team/${v}` : '/overview')}
    />
  );
}
