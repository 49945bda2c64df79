/** "Forgot password": asks for a reset link by e-mail address; the answer is the same whether or not an account has it. */
import { Alert, Button, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useErrorText } from '../../components/ErrorState';
import { PublicCard } from './PublicCard';

export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const form = useForm({
    initialValues: { email: '' },
    validate: { email: (v) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim()) ? null : t('signup.invalidEmail')) },
  });
  const ask = useMutation({ mutationFn: (email: string) => call(client.POST('/api/user/password/forgot', { body: { email } })) });
  return (
    <PublicCard>
      <form onSubmit={form.onSubmit((v) => ask.mutate(v.email.trim()))} noValidate aria-label={t('signup.forgotTitle')}>
        <Stack>
          <Title order={2} size="h3">
            {t('signup.forgotTitle')}
          </Title>
          {ask.isSuccess ? (
            <Alert color="green" role="status">
              {t('signup.forgotSent')}
            </Alert>
          ) : (
            <>
              <Text size="sm">{t('signup.forgotHint')}</Text>
              {ask.error && (
                <Alert color="red" role="alert">
                  {errorText(ask.error)}
                </Alert>
              )}
              <TextInput label={t('signup.email')} type="email" autoComplete="email" autoFocus required {...form.getInputProps('email')} />
              <Button type="submit" loading={ask.isPending} fullWidth>
                {t('signup.forgotSubmit')}
              </Button>
            </>
          )}
        </Stack>
      </form>
    </PublicCard>
  );
}
