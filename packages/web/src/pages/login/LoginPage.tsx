/**
 * Login: username and password (then a second factor when the account has one, TwoFactorStep) or a
 * passkey; afterwards back to where the user was (?next=) or home — or to the profile when an admin
 * must enrol a second factor first.
 */
import { Alert, Button, Center, Divider, Group, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { call, client } from '../../api/client';
import { useErrorText } from '../../components/ErrorState';
import { HeaderControls } from '../../components/HeaderControls';
import { Brand } from '../../components/Brand';
import { LoginLinks } from './LoginLinks';
import { SsoButtons } from '../../components/SsoButtons';
import { PasskeyLoginButton, TwoFactorStep, type LoginDone } from './TwoFactorStep';

/** Only same-origin console paths are followed after login. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/';
}

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const qc = useQueryClient();
  const errorText = useErrorText();
  const form = useForm({
    initialValues: { username: '', password: '' },
    validate: {
      username: (v) => (v.trim() ? null : t('login.usernameRequired')),
      password: (v) => (v ? null : t('login.passwordRequired')),
    },
  });
  const login = useMutation({
    mutationFn: (v: { username: string; password: string }) =>
      call(client.POST('/api/user/login', { body: { username: v.username.trim(), password: v.password } })),
    onSuccess: (d) => {
      const step = d as { require_2fa?: boolean; methods?: string[] };
      if (step.require_2fa) setMethods(step.methods ?? []);
      else done(d as LoginDone);
    },
  });
  // A single sign-on that needs the second factor comes back with ?second_factor=<methods>.
  const [methods, setMethods] = useState<string[] | null>(params.get('second_factor')?.split(',').filter(Boolean) ?? null);
  const done = (d: LoginDone) => {
    // the login answer is a short user record: the layout loads the full one
    qc.clear();
    void navigate(d.require_2fa_setup ? '/profile' : safeNext(params.get('next')), { replace: true });
  };
  return (
    <Center mih="100vh" p="md">
      <Stack w={380} maw="100%">
        <Group justify="space-between">
          <Title order={1} size="h2">
            <Brand size={26} />
          </Title>
          <HeaderControls />
        </Group>
        <Paper withBorder shadow="sm" p="lg" radius="md" component="main">
          {methods ? (
            <TwoFactorStep
              methods={methods}
              onDone={done}
              onBack={() => {
                setMethods(null);
                login.reset();
                form.setFieldValue('password', '');
              }}
            />
          ) : (
            <>
              <form onSubmit={form.onSubmit((v) => login.mutate(v))} noValidate aria-label={t('login.title')}>
                <Stack>
                  <Title order={2} size="h3">
                    {t('login.title')}
                  </Title>
                  {login.error && (
                    <Alert color="red" role="alert" title={t('login.failed')}>
                      {errorText(login.error)}
                    </Alert>
                  )}
                  <TextInput label={t('login.username')} autoComplete="username" autoFocus required {...form.getInputProps('username')} />
                  <PasswordInput label={t('login.password')} autoComplete="current-password" required {...form.getInputProps('password')} />
                  <Button type="submit" loading={login.isPending} fullWidth>
                    {t('login.submit')}
                  </Button>
                  <LoginLinks />
                </Stack>
              </form>
              <SsoButtons error={params.get('sso_error')} />
              <Divider my="md" />
              <PasskeyLoginButton onDone={done} />
            </>
          )}
        </Paper>
      </Stack>
    </Center>
  );
}
