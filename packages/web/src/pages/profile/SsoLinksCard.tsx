/**
 * The profile's single sign-on card: the enabled providers and which are linked to this account
 * (GET /api/user/sso); linking one (POST /api/user/sso/{id}/link, confirmed with the password and the
 * second factor, then the provider's page) and unlinking it. Nothing is shown without providers.
 */
import { Alert, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { call, client } from '../../api/client';
import { ReauthButton, type ReauthProof } from '../../components/ReauthDialog';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';

export function SsoLinksCard() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const list = useQuery({ queryKey: ['sso-links'], queryFn: () => call(client.GET('/api/user/sso')) });
  const link = useApiMutation(
    (x: { id: string; proof: ReauthProof }) =>
      call(client.POST('/api/user/sso/{id}/link', { params: { path: { id: x.id } }, body: x.proof })),
    { onSuccess: (d) => window.location.assign(d.url) },
  );
  const unlink = useApiMutation(
    (x: { id: string; proof: ReauthProof }) => call(client.DELETE('/api/user/sso/{id}', { params: { path: { id: x.id } }, body: x.proof })),
    { invalidate: ['sso-links'], success: t('sso.unlinked') },
  );
  if (!list.data?.length) return null;
  const justLinked = params.get('sso_linked');
  const error = link.error ?? unlink.error;
  return (
    <Card withBorder component="section" aria-labelledby="sso-links-title" mt="md">
      <Title order={3} size="h4" id="sso-links-title" mb="sm">
        {t('sso.linksTitle')}
      </Title>
      <Stack>
        <Text size="sm">{t('sso.linksHint')}</Text>
        {justLinked && (
          <Alert color="teal">{t('sso.linked', { name: list.data.find((p) => p.id === justLinked)?.name ?? justLinked })}</Alert>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error.message}
          </Alert>
        )}
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={t('sso.linksTitle')}>
          {list.data.map((p) => (
            <Group key={p.id} component="li" justify="space-between">
              <Group gap="xs">
                <Text size="sm" fw={600}>
                  {p.name}
                </Text>
                {p.linked ? (
                  <Badge variant="light" color="teal">
                    {t('sso.linkedSince', { time: fmtTime(p.linked.created_at) })}
                  </Badge>
                ) : (
                  <Badge variant="light" color="gray">
                    {t('sso.notLinked')}
                  </Badge>
                )}
              </Group>
              {p.linked ? (
                <ReauthButton
                  title={t('sso.unlink')}
                  message={t('sso.unlinkConfirm', { name: p.name })}
                  color="red"
                  size="xs"
                  variant="subtle"
                  loading={unlink.isPending}
                  onConfirm={(proof) => unlink.mutate({ id: p.id, proof })}
                >
                  {t('sso.unlink')}
                </ReauthButton>
              ) : (
                <ReauthButton
                  title={t('sso.link')}
                  message={t('sso.linkConfirm', { name: p.name })}
                  size="xs"
                  variant="light"
                  secondFactorToo
                  loading={link.isPending}
                  onConfirm={(proof) => link.mutate({ id: p.id, proof })}
                >
                  {t('sso.link')}
                </ReauthButton>
              )}
            </Group>
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}
