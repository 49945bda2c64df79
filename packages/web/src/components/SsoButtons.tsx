/**
 * The login page's single sign-on buttons: one per enabled provider (GET /api/sso/providers/public),
 * each a plain link to /api/sso/{id}/start (with the page's ?next=) so the browser leaves for the
 * provider; a refused sign-on comes back as /login?sso_error=<code> and is shown here. Nothing is
 * drawn when no provider is set.
 */
import { Alert, Button, Divider, Stack } from '@mantine/core';
import { IconLogin2 } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { call, client } from '../api/client';

const KNOWN_ERRORS = [
  'sso_invalid_state',
  'sso_email_unverified',
  'sso_link_refused',
  'sso_denied',
  'user_disabled',
  'sso_provider_not_found',
  'sso_provider_unreachable',
] as const;
type KnownError = (typeof KNOWN_ERRORS)[number];

export function SsoButtons({ error }: { error?: string | null }) {
  const { t } = useTranslation();
  // Back to where the user was after signing in, as the password login does (checked again by the gateway).
  const [params] = useSearchParams();
  const next = params.get('next');
  const query = next ? `?next=${encodeURIComponent(next)}` : '';
  const q = useQuery({
    queryKey: ['sso-public'],
    queryFn: () => call(client.GET('/api/sso/providers/public')),
    staleTime: 60_000,
    retry: false,
  });
  const providers = q.data ?? [];
  if (!providers.length && !error) return null;
  return (
    <Stack gap="xs" mt="md">
      {error && (
        <Alert color="red" role="alert" title={t('sso.failed')}>
          {(KNOWN_ERRORS as readonly string[]).includes(error) ? t(`sso.error.${error as KnownError}`) : t('sso.error.other')}
        </Alert>
      )}
      {providers.length > 0 && <Divider label={t('sso.or')} labelPosition="center" />}
      {providers.map((p) => (
        <Button
          key={p.id}
          component="a"
          href={`/api/sso/${encodeURIComponent(p.id)}/start${query}`}
          variant="default"
          fullWidth
          leftSection={<IconLogin2 size={16} />}
        >
          {p.button_label || t('sso.signInWith', { name: p.name })}
        </Button>
      ))}
    </Stack>
  );
}
