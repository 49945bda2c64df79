/** The page of a mailed verification link (?token=): verifies the address once, on opening. */
import { useEffect, useRef } from 'react';
import { Alert, Button, Loader, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { call, client } from '../../api/client';
import { useErrorText } from '../../components/ErrorState';
import { PublicCard } from './PublicCard';

export default function VerifyEmailPage() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = useMutation({ mutationFn: () => call(client.POST('/api/user/email/verify', { body: { token } })) });
  const started = useRef(false);
  useEffect(() => {
    // A link works once: never sent twice (React may run effects twice in development).
    if (!token || started.current) return;
    started.current = true;
    verify.mutate();
  }, [token, verify]);
  return (
    <PublicCard>
      <Stack>
        <Title order={2} size="h3">
          {t('signup.verifyTitle')}
        </Title>
        {!token ? (
          <Alert color="red" role="alert">
            {t('signup.noToken')}
          </Alert>
        ) : verify.isSuccess ? (
          <Alert color="green" role="status">
            {t('signup.verified', { email: verify.data.email })}
          </Alert>
        ) : verify.error ? (
          <Alert color="red" role="alert" title={t('signup.verifyFailed')}>
            {errorText(verify.error)}
          </Alert>
        ) : (
          <Loader aria-label={t('signup.verifying')} />
        )}
        {verify.isSuccess && (
          <Button component={Link} to="/">
            {t('signup.goLogin')}
          </Button>
        )}
      </Stack>
    </PublicCard>
  );
}
