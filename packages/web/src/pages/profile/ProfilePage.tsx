/** Profile: who the user is, change password, and a personal access token for scripts and the CLI. */
import { Alert, Button, Card, Group, PasswordInput, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useSelf } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyField } from '../../components/CopyField';
import { DetailList } from '../../components/DetailList';
import { validators } from '../../components/fields';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';

function PasswordForm() {
  const { t } = useTranslation();
  const v = validators(t);
  const form = useForm({
    initialValues: { old_password: '', new_password: '', confirm: '' },
    validate: {
      old_password: v.required, new_password: v.password,
      confirm: (x, all) => (x === all.new_password ? null : t('validation.passwordsDiffer')),
    },
  });
  const save = useApiMutation((x: typeof form.values) => call(client.PUT('/api/user/self/password', { body: { old_password: x.old_password, new_password: x.new_password } })),
    { success: t('profile.passwordChanged'), onSuccess: () => form.reset() });
  return (
    <Card withBorder component="section" aria-labelledby="pw-title">
      <Title order={3} size="h4" id="pw-title" mb="sm">{t('profile.changePassword')}</Title>
      <form onSubmit={form.onSubmit((x) => save.mutate(x))} noValidate aria-label={t('profile.changePassword')}>
        <Stack>
          {save.error && <Alert color="red" role="alert">{save.error.message}</Alert>}
          <PasswordInput label={t('profile.oldPassword')} autoComplete="current-password" required {...form.getInputProps('old_password')} />
          <PasswordInput label={t('profile.newPassword')} description={t('validation.password')} autoComplete="new-password" required {...form.getInputProps('new_password')} />
          <PasswordInput label={t('profile.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
          <Group justify="flex-end"><Button type="submit" loading={save.isPending}>{t('profile.changePassword')}</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}

function AccessToken() {
  const { t } = useTranslation();
  const [token, setToken] = useState<string | null>(null);
  const issue = useApiMutation(() => call(client.POST('/api/user/token')), { onSuccess: (d) => setToken(d.access_token ?? null) });
  return (
    <Card withBorder component="section" aria-labelledby="pat-title">
      <Title order={3} size="h4" id="pat-title" mb="sm">{t('profile.token')}</Title>
      <Stack>
        <Text size="sm">{t('profile.tokenHint')}</Text>
        {issue.error && <Alert color="red" role="alert">{issue.error.message}</Alert>}
        {token && <><Alert color="yellow">{t('keys.shownOnce')}</Alert><CopyField label={t('profile.token')} value={token} /></>}
        <Group justify="flex-end">
          <ConfirmButton title={t('profile.issueToken')} message={t('profile.issueConfirm')} color="red" loading={issue.isPending} onConfirm={() => issue.mutate(undefined)}>
            {t('profile.issueToken')}
          </ConfirmButton>
        </Group>
      </Stack>
    </Card>
  );
}

export default function ProfilePage() {
  const { t } = useTranslation();
  const u = useSelf().data;
  return (
    <>
      <PageHeader title={t('nav.profile')} />
      {u && (
        <Card withBorder mb="md">
          <DetailList items={[
            [t('users.username'), u.username], [t('users.displayName'), u.display_name || '—'], [t('users.role'), <StatusBadge key="r" status={u.role} />],
            [t('users.group'), u.group], [t('users.created'), fmtTime(u.created_at)],
          ]} />
        </Card>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <PasswordForm />
        <AccessToken />
      </SimpleGrid>
    </>
  );
}
