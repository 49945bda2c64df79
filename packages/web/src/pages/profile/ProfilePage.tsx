/**
 * Profile: who the user is, change password, a personal access token for scripts and the CLI, and the
 * low-balance alert (threshold, e-mail, webhook; GET/PUT /api/user/self/alerts). Two-factor
 * authentication and passkeys are in SecurityCard.
 */
import { Alert, Button, Card, Group, NumberInput, PasswordInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useSelf } from '../../app/session';
import { ReauthButton, ReauthField, proofOf, useReauthMethod, type ReauthProof } from '../../components/ReauthDialog';
import { CopyField } from '../../components/CopyField';
import { DetailList } from '../../components/DetailList';
import { validators } from '../../components/fields';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';
import { EmailCard } from '../signup/EmailCard';
import { SecurityCard } from './SecurityCard';
import { SsoLinksCard } from './SsoLinksCard';

function PasswordForm() {
  const { t } = useTranslation();
  const v = validators(t);
  // An account without a password (single sign-on) confirms with a second factor instead.
  const method = useReauthMethod();
  const form = useForm({
    initialValues: { old_password: '', new_password: '', confirm: '' },
    validate: {
      old_password: (x) => (method === 'recent_sign_in' ? null : v.required(x)),
      new_password: v.password,
      confirm: (x, all) => (x === all.new_password ? null : t('validation.passwordsDiffer')),
    },
  });
  const save = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.PUT('/api/user/self/password', {
          body:
            method === 'password'
              ? { old_password: x.old_password, new_password: x.new_password }
              : { new_password: x.new_password, ...proofOf(method, x.old_password) },
        }),
      ),
    { success: t('profile.passwordChanged'), onSuccess: () => form.reset() },
  );
  return (
    <Card withBorder component="section" aria-labelledby="pw-title">
      <Title order={3} size="h4" id="pw-title" mb="sm">
        {t('profile.changePassword')}
      </Title>
      <form onSubmit={form.onSubmit((x) => save.mutate(x))} noValidate aria-label={t('profile.changePassword')}>
        <Stack>
          {save.error && (
            <Alert color="red" role="alert">
              {save.error.message}
            </Alert>
          )}
          {method === 'password' ? (
            <PasswordInput
              label={t('profile.oldPassword')}
              autoComplete="current-password"
              required
              {...form.getInputProps('old_password')}
            />
          ) : (
            <ReauthField method={method} value={form.values.old_password} onChange={(x) => form.setFieldValue('old_password', x)} />
          )}
          <PasswordInput
            label={t('profile.newPassword')}
            description={t('validation.password')}
            autoComplete="new-password"
            required
            {...form.getInputProps('new_password')}
          />
          <PasswordInput label={t('profile.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t('profile.changePassword')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function AccessToken() {
  const { t } = useTranslation();
  const [token, setToken] = useState<string | null>(null);
  const issue = useApiMutation((proof: ReauthProof) => call(client.POST('/api/user/token', { body: proof })), {
    onSuccess: (d) => setToken(d.access_token ?? null),
  });
  return (
    <Card withBorder component="section" aria-labelledby="pat-title">
      <Title order={3} size="h4" id="pat-title" mb="sm">
        {t('profile.token')}
      </Title>
      <Stack>
        <Text size="sm">{t('profile.tokenHint')}</Text>
        {issue.error && (
          <Alert color="red" role="alert">
            {issue.error.message}
          </Alert>
        )}
        {token && (
          <>
            <Alert color="yellow">{t('keys.shownOnce')}</Alert>
            <CopyField label={t('profile.token')} value={token} />
          </>
        )}
        <Group justify="flex-end">
          <ReauthButton
            title={t('profile.issueToken')}
            message={t('profile.issueConfirm')}
            color="red"
            loading={issue.isPending}
            onConfirm={(proof) => issue.mutate(proof)}
          >
            {t('profile.issueToken')}
          </ReauthButton>
        </Group>
      </Stack>
    </Card>
  );
}

function AlertSettings() {
  const { t } = useTranslation();
  const current = useQuery({ queryKey: ['alert-settings'], queryFn: () => call(client.GET('/api/user/self/alerts')) });
  const [secret, setSecret] = useState<string | null>(null);
  const form = useForm({ initialValues: { threshold: 0 as number | string, email: '', webhook_url: '', webhook_secret: '' } });
  const loaded = current.data;
  useEffect(() => {
    if (loaded)
      form.setValues({
        threshold: loaded.low_balance_threshold_usd,
        email: loaded.email ?? '',
        webhook_url: loaded.webhook_url ?? '',
        webhook_secret: '',
      });
    // Filled once per answer; the form object is stable.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded]);
  const save = useApiMutation(
    (x: typeof form.values) =>
      call(
        client.PUT('/api/user/self/alerts', {
          body: {
            low_balance_threshold_usd: Number(x.threshold) || 0,
            email: x.email.trim() || null,
            webhook_url: x.webhook_url.trim() || null,
            ...(x.webhook_secret.trim() ? { webhook_secret: x.webhook_secret.trim() } : {}),
          },
        }),
      ),
    {
      success: t('alerts.saved'),
      invalidate: ['alert-settings'],
      onSuccess: (d) => {
        setSecret(d.webhook_secret ?? null);
        form.setFieldValue('webhook_secret', '');
      },
    },
  );
  return (
    <Card withBorder component="section" aria-labelledby="alerts-title" mt="md">
      <Title order={3} size="h4" id="alerts-title" mb="sm">
        {t('alerts.title')}
      </Title>
      <form onSubmit={form.onSubmit((x) => save.mutate(x))} noValidate aria-label={t('alerts.title')}>
        <Stack>
          <Text size="sm">{t('alerts.hint')}</Text>
          {save.error && (
            <Alert color="red" role="alert">
              {save.error.message}
            </Alert>
          )}
          {current.data?.low_balance_alerted && <Alert color="orange">{t('alerts.alerted')}</Alert>}
          {secret && (
            <>
              <Alert color="yellow">{t('keys.shownOnce')}</Alert>
              <CopyField label={t('alerts.webhookSecret')} value={secret} />
            </>
          )}
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NumberInput label={t('alerts.threshold')} prefix="$" min={0} decimalScale={6} {...form.getInputProps('threshold')} />
            <TextInput label={t('alerts.email')} type="email" autoComplete="email" {...form.getInputProps('email')} />
            <TextInput label={t('alerts.webhookUrl')} placeholder="https://" {...form.getInputProps('webhook_url')} />
          </SimpleGrid>
          <PasswordInput
            label={t('alerts.webhookSecret')}
            autoComplete="off"
            description={current.data?.webhook_secret_set ? `${t('alerts.secretSet')} ${t('alerts.secretHint')}` : t('alerts.secretHint')}
            {...form.getInputProps('webhook_secret')}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {t('alerts.save')}
            </Button>
          </Group>
        </Stack>
      </form>
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
          <DetailList
            items={[
              [t('users.username'), u.username],
              [t('users.displayName'), u.display_name || '—'],
              [t('users.role'), <StatusBadge key="r" status={u.role} />],
              [t('users.group'), u.group],
              [t('users.created'), fmtTime(u.created_at)],
            ]}
          />
        </Card>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <PasswordForm />
        <AccessToken />
      </SimpleGrid>
      <SecurityCard />
      <SsoLinksCard />
      <AlertSettings />
      <EmailCard />
    </>
  );
}
