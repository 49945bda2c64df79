/** Sign-up: username, password, e-mail address (required when the gateway verifies addresses) and an invitation code when one is needed. */
import { Alert, Button, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call, client } from '../../api/client';
import { ErrorState, useErrorText } from '../../components/ErrorState';
import { PageLoader } from '../../components/PageLoader';
import { PublicCard, useSignupSettings } from './PublicCard';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export default function SignupPage() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const settings = useSignupSettings();
  const s = settings.data;
  const form = useForm({
    initialValues: { username: '', password: '', confirm: '', email: '', invitation_code: '' },
    validate: {
      username: (v) => (v.trim() ? null : t('signup.required')),
      password: (v) => (v.length >= 8 ? null : t('signup.tooShort')),
      confirm: (v, all) => (v === all.password ? null : t('signup.mismatch')),
      email: (v) =>
        v.trim() === '' ? (s?.email_required ? t('signup.required') : null) : EMAIL_RE.test(v.trim()) ? null : t('signup.invalidEmail'),
      invitation_code: (v) => (s?.invitation_required && !v.trim() ? t('signup.required') : null),
    },
  });
  const register = useMutation({
    mutationFn: (v: typeof form.values) =>
      call(
        client.POST('/api/user/register', {
          body: {
            username: v.username.trim(),
            password: v.password,
            ...(v.email.trim() ? { email: v.email.trim() } : {}),
            ...(v.invitation_code.trim() ? { invitation_code: v.invitation_code.trim() } : {}),
          },
        }),
      ),
  });
  let content: React.ReactNode;
  if (settings.isPending) content = <PageLoader />;
  else if (settings.error) content = <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />;
  else if (!s?.enabled)
    content = (
      <Alert color="yellow" role="alert" title={t('signup.title')}>
        {t('signup.disabled')}
      </Alert>
    );
  else if (register.data) {
    content = (
      <Stack>
        <Alert color="green" role="status" title={t('signup.created')}>
          {register.data.verification_sent ? t('signup.createdVerify', { email: register.data.email }) : t('signup.createdLogin')}
        </Alert>
        <Button component={Link} to="/login">
          {t('signup.goLogin')}
        </Button>
      </Stack>
    );
  } else {
    content = (
      <form onSubmit={form.onSubmit((v) => register.mutate(v))} noValidate aria-label={t('signup.title')}>
        <Stack>
          <Title order={2} size="h3">
            {t('signup.title')}
          </Title>
          {register.error && (
            <Alert color="red" role="alert" title={t('signup.failed')}>
              {errorText(register.error)}
            </Alert>
          )}
          <TextInput
            label={t('signup.username')}
            description={t('signup.usernameHint')}
            autoComplete="username"
            autoFocus
            required
            {...form.getInputProps('username')}
          />
          <TextInput
            label={t('signup.email')}
            type="email"
            autoComplete="email"
            required={s.email_required}
            description={s.email_required ? undefined : t('signup.emailOptional')}
            {...form.getInputProps('email')}
          />
          <PasswordInput
            label={t('signup.password')}
            description={t('signup.passwordHint')}
            autoComplete="new-password"
            required
            {...form.getInputProps('password')}
          />
          <PasswordInput label={t('signup.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
          {s.invitation_required && (
            <TextInput label={t('signup.invitationCode')} required autoComplete="off" {...form.getInputProps('invitation_code')} />
          )}
          <Button type="submit" loading={register.isPending} fullWidth>
            {t('signup.submit')}
          </Button>
        </Stack>
      </form>
    );
  }
  return <PublicCard>{content}</PublicCard>;
}
