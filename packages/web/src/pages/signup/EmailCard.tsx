/** The profile's e-mail address card: the address and whether it is verified; set one and mail a verification link. */
import { Alert, Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useApiMutation } from '../../components/useApiMutation';
import { useSignupSettings } from './PublicCard';

export function EmailCard() {
  const { t } = useTranslation();
  const settings = useSignupSettings();
  const current = useQuery({ queryKey: ['self-email'], queryFn: () => call(client.GET('/api/user/self/email')) });
  const form = useForm({ initialValues: { email: '' } });
  const send = useApiMutation((email: string) => call(client.POST('/api/user/self/email', { body: email ? { email } : {} })), {
    invalidate: ['self-email'],
    success: (d) => t('signup.verificationSent', { email: d.email }),
    onSuccess: () => form.reset(),
  });
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
          <form onSubmit={form.onSubmit((v) => send.mutate(v.email.trim()))} noValidate aria-label={t('signup.sendVerification')}>
            <Group align="flex-end">
              <TextInput
                label={t('signup.email')}
                type="email"
                autoComplete="email"
                placeholder={e?.email}
                style={{ flex: 1 }}
                {...form.getInputProps('email')}
              />
              <Button type="submit" loading={send.isPending} disabled={!!e?.verified && !form.values.email.trim()}>
                {t('signup.sendVerification')}
              </Button>
            </Group>
          </form>
        )}
      </Stack>
    </Card>
  );
}
