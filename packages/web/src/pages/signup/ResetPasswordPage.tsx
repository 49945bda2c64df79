/** "Reset password": the page of the link mailed by "forgot password" (?token=); sets a new password once. */
import { Alert, Anchor, Button, PasswordInput, Stack, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { call, client } from '../../api/client';
import { useErrorText } from '../../components/ErrorState';
import { PublicCard } from './PublicCard';

export default function ResetPasswordPage() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const form = useForm({
    initialValues: { password: '', confirm: '' },
    validate: {
      password: (v) => (v.length >= 8 ? null : t('signup.tooShort')),
      confirm: (v, all) => (v === all.password ? null : t('signup.mismatch')),
    },
  });
  const reset = useMutation({
    mutationFn: (password: string) => call(client.POST('/api/user/password/reset', { body: { token, password } })),
  });
  return (
    <PublicCard>
      <form onSubmit={form.onSubmit((v) => reset.mutate(v.password))} noValidate aria-label={t('signup.resetTitle')}>
        <Stack>
          <Title order={2} size="h3">
            {t('signup.resetTitle')}
          </Title>
          {!token ? (
            <Alert color="red" role="alert">
              {t('signup.noToken')}
            </Alert>
          ) : reset.isSuccess ? (
            <>
              <Alert color="green" role="status">
                {t('signup.resetDone')}
              </Alert>
              <Button component={Link} to="/login">
                {t('signup.goLogin')}
              </Button>
            </>
          ) : (
            <>
              {reset.error && (
                <Alert color="red" role="alert">
                  {errorText(reset.error)}{' '}
                  <Anchor component={Link} to="/forgot-password">
                    {t('signup.askAgain')}
                  </Anchor>
                </Alert>
              )}
              <PasswordInput
                label={t('profile.newPassword')}
                description={t('signup.passwordHint')}
                autoComplete="new-password"
                autoFocus
                required
                {...form.getInputProps('password')}
              />
              <PasswordInput label={t('profile.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
              <Button type="submit" loading={reset.isPending} fullWidth>
                {t('signup.resetSubmit')}
              </Button>
            </>
          )}
        </Stack>
      </form>
    </PublicCard>
  );
}
