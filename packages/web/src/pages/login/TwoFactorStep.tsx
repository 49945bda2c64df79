/**
 * The login's second step, after the password was accepted and the answer said `require_2fa`: a code
 * (authenticator app or recovery code) or a passkey completes the pending login (POST /api/user/login/2fa).
 */
import { Alert, Button, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useErrorText } from '../../components/ErrorState';

export type LoginDone = { require_2fa_setup?: boolean };

export function TwoFactorStep({ methods, onDone, onBack }: { methods: string[]; onDone: (d: LoginDone) => void; onBack: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const form = useForm({ initialValues: { code: '' }, validate: { code: (v) => (v.trim() ? null : t('twoFactor.codeRequired')) } });
  const withCode = useMutation({
    mutationFn: (code: string) => call(client.POST('/api/user/login/2fa', { body: { code } })),
    onSuccess: (d) => onDone(d as LoginDone),
  });
  const withPasskey = useMutation({
    mutationFn: async () => {
      const options = await call(client.POST('/api/user/login/2fa/passkey-options'));
      const { startAuthentication } = await import('@simplewebauthn/browser');
      const assertion = await startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
      return call(client.POST('/api/user/login/2fa', { body: { assertion: assertion as unknown as Record<string, unknown> } }));
    },
    onSuccess: (d) => onDone(d as LoginDone),
  });
  const hasCode = methods.includes('totp') || methods.includes('recovery_code');
  const error = withCode.error ?? withPasskey.error;
  return (
    <Stack>
      <Title order={2} size="h3">
        {t('twoFactor.stepTitle')}
      </Title>
      {error && (
        <Alert color="red" role="alert" title={t('login.failed')}>
          {errorText(error)}
        </Alert>
      )}
      {methods.includes('passkey') && (
        <Button variant={hasCode ? 'light' : 'filled'} onClick={() => withPasskey.mutate()} loading={withPasskey.isPending} fullWidth>
          {t('twoFactor.usePasskey')}
        </Button>
      )}
      {hasCode && (
        <form onSubmit={form.onSubmit((v) => withCode.mutate(v.code.trim()))} noValidate aria-label={t('twoFactor.stepTitle')}>
          <Stack>
            <Text size="sm">{t('twoFactor.stepHint')}</Text>
            <TextInput
              label={t('twoFactor.code')}
              autoComplete="one-time-code"
              inputMode="text"
              autoFocus
              required
              {...form.getInputProps('code')}
            />
            <Button type="submit" loading={withCode.isPending} fullWidth>
              {t('twoFactor.verify')}
            </Button>
          </Stack>
        </form>
      )}
      <Button variant="subtle" onClick={onBack}>
        {t('twoFactor.back')}
      </Button>
    </Stack>
  );
}

/** A login without a password: any passkey of this site (POST /api/user/passkey/login). */
export function PasskeyLoginButton({ onDone }: { onDone: (d: LoginDone) => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const login = useMutation({
    mutationFn: async () => {
      const options = await call(client.POST('/api/user/passkey/login/options'));
      const { startAuthentication } = await import('@simplewebauthn/browser');
      const assertion = await startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
      return call(client.POST('/api/user/passkey/login', { body: { assertion: assertion as unknown as Record<string, unknown> } }));
    },
    onSuccess: (d) => onDone(d as LoginDone),
  });
  return (
    <Stack gap="xs">
      {login.error && (
        <Alert color="red" role="alert">
          {errorText(login.error)}
        </Alert>
      )}
      <Button variant="default" onClick={() => login.mutate()} loading={login.isPending} fullWidth>
        {t('twoFactor.loginWithPasskey')}
      </Button>
    </Stack>
  );
}
