/** The profile's e-mail address card: the address and whether it is verified; set one and mail a verification link. */
import { Alert, Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useApiMutation } from '../../components/useApiMutation';
import { ReauthField, proofOf, useReauthMethod } from '../../components/ReauthDialog';
import { useSignupSettings } from './PublicCard';

export function EmailCard() {
  const { t } = useTranslation();
  const settings = useSignupSettings();
  const current = useQuery({ queryKey: ['self-email'], queryFn: () => call(client.GET('/api/user/self/email')) });
  // A new address is confirmed (password resets go there); sending the link again to the same one is not.
  const method = useReauthMethod();
  const form = useForm({ initialValues: { email: '', confirm: '' } });
  const send = useApiMutation(
    (v: { email: string; confirm: string }) =>
      call(client.POST('/api/user/self/email', { body: v.email ? { email: v.email, ...proofOf(method, v.confirm) } : {} })),
    {
      invalidate: ['self-email'],
      success: (d) => t('signup.verificationSent', { email: d.email }),
      onSuccess: () => form.reset(),
    },
  );
  // Nothing to offer where mail cannot be sent and no address is stored.
  if (!settings.data?.email_configured && !current.data) return null;
  const e = current.data;
  return (
    <Card withBorder component="section" aria-labelledby="email-title" mt="md">
      <Title order={3} size="h4" id="email-title" mb="sm">
        {t('signup.emailTitle')}
      </Title>
      <Stack>
        {e ? (
          <Group gap="xs">
            <Text>{e.email}</Text>
            <Badge variant="light" color={e.verified ? 'green' : 'gray'}>
              {e.verified ? t('signup.emailVerified') : t('signup.emailUnverified')}
            </Badge>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            {t('signup.emailNone')}
          </Text>
        )}
        {send.error && (
          <Alert color="red" role="alert">
            {send.error.message}
          </Alert>
        )}
        {settings.data?.email_configured && (
          <form
            onSubmit={form.onSubmit((v) => send.mutate({ email: v.email.trim(), confirm: v.confirm }))}
            noValidate
            aria-label={t('signup.sendVerification')}
          >
            <Stack>
              <TextInput
                label={t('signup.email')}
                type="email"
                autoComplete="email"
                placeholder={e?.email}
                {...form.getInputProps('email')}
              />
              {form.values.email.trim() !== '' && (
                <ReauthField method={method} value={form.values.confirm} onChange={(x) => form.setFieldValue('confirm', x)} />
              )}
              <Group justify="flex-end">
                <Button type="submit" loading={send.isPending} disabled={!!e?.verified && !form.values.email.trim()}>
                  {t('signup.sendVerification')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
