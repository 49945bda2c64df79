/**
 * The page an invitation link opens (/team-invite?token=…), signed in: accept it once, then go to the
 * team. A used, expired or revoked link says so.
 */
import { Alert, Button, Group, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';

export default function TeamInvitePage() {
  const { t } = useTranslation();
  const token = useSearchParams()[0].get('token') ?? '';
  const navigate = useNavigate();
  const accept = useApiMutation((tok: string) => call(client.POST('/api/team/invitations/accept', { body: { token: tok } })), {
    invalidate: ['teams'],
    success: (r) => t('teams.joined', { name: r.team.name }),
    onSuccess: (r) => void navigate(`/team/${r.team.id}`),
  });
  return (
    <>
      <PageHeader title={t('teams.inviteTitle')} />
      <Stack maw={520}>
        {!token ? (
          <Alert color="yellow">{t('teams.inviteNoToken')}</Alert>
        ) : (
          <>
            <Alert color="blue">{t('teams.inviteAsk')}</Alert>
            {accept.error ? <ErrorState error={accept.error} /> : null}
            <Group>
              <Button loading={accept.isPending} onClick={() => accept.mutate(token)}>
                {t('teams.accept')}
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </>
  );
}
