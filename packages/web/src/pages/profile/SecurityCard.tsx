/**
 * The profile's two-factor card: the authenticator app (set up with a key shown once, turned on and
 * off with a code), recovery codes (shown once), and passkeys (add, remove). /api/user/2fa/* and
 * /api/user/passkey/*.
 */
import { Alert, Badge, Button, Card, Code, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ReauthButton, useReauthMethod, type ReauthProof } from '../../components/ReauthDialog';
import { CopyField } from '../../components/CopyField';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime } from '../../lib/format';

export const TWO_FACTOR_KEY = '2fa-status';

function RecoveryCodes({ codes }: { codes: string[] }) {
  const { t } = useTranslation();
  return (
    <Alert color="yellow" title={t('twoFactor.recoveryCodes')}>
      <Stack gap="xs">
        <Text size="sm">{t('twoFactor.recoveryHint')}</Text>
        <SimpleGrid
          cols={2}
          spacing={4}
          aria-label={t('twoFactor.recoveryCodes')}
          component="ul"
          style={{ listStyle: 'none', padding: 0, margin: 0 }}
        >
          {codes.map((c) => (
            <li key={c}>
              <Code>{c}</Code>
            </li>
          ))}
        </SimpleGrid>
      </Stack>
    </Alert>
  );
}

export function SecurityCard() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const status = useQuery({ queryKey: [TWO_FACTOR_KEY], queryFn: () => call(client.GET('/api/user/2fa/status')) });
  const passkeys = useQuery({ queryKey: ['passkeys'], queryFn: () => call(client.GET('/api/user/passkey')) });
  const [setup, setSetup] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [codes, setCodes] = useState<string[]>([]);
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const method = useReauthMethod();
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: [TWO_FACTOR_KEY] });
    void qc.invalidateQueries({ queryKey: ['passkeys'] });
  };

  const start = useApiMutation(() => call(client.POST('/api/user/2fa/setup')), {
    onSuccess: (d) => {
      setSetup(d);
      setCode('');
      setCodes([]);
    },
  });
  const enable = useApiMutation((c: string) => call(client.POST('/api/user/2fa/enable', { body: { code: c } })), {
    success: t('twoFactor.enabled'),
    onSuccess: (d) => {
      setSetup(null);
      setCode('');
      setCodes(d.recovery_codes);
      refresh();
    },
  });
  const disable = useApiMutation((b: { code: string } & ReauthProof) => call(client.POST('/api/user/2fa/disable', { body: b })), {
    success: t('twoFactor.disabled'),
    onSuccess: () => {
      setCode('');
      setCodes([]);
      refresh();
    },
  });
  const regenerate = useApiMutation((c: string) => call(client.POST('/api/user/2fa/backup_codes', { body: { code: c } })), {
    onSuccess: (d) => {
      setCode('');
      setCodes(d.recovery_codes);
      refresh();
    },
  });
  const addPasskey = useApiMutation(
    async (label: string) => {
      const options = await call(client.POST('/api/user/passkey/register/options'));
      const response = await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
      return call(
        client.POST('/api/user/passkey/register', { body: { response: response as unknown as Record<string, unknown>, name: label } }),
      );
    },
    {
      success: t('twoFactor.passkeyAdded'),
      onSuccess: (d) => {
        setName('');
        if (d.recovery_codes.length) setCodes(d.recovery_codes);
        refresh();
      },
    },
  );
  const removePasskey = useApiMutation(
    (x: { id: number; proof: ReauthProof }) =>
      call(client.DELETE('/api/user/passkey/{id}', { params: { path: { id: x.id } }, body: x.proof })),
    { success: t('twoFactor.passkeyRemoved'), notifyError: true, onSuccess: refresh },
  );

  const s = status.data;
  const error = start.error ?? enable.error ?? disable.error ?? regenerate.error ?? addPasskey.error;
  return (
    <Card withBorder component="section" aria-labelledby="tf-title" mt="md">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4" id="tf-title">
          {t('twoFactor.title')}
        </Title>
        {s && (
          <Badge color={s.enabled ? 'teal' : 'gray'} variant="light">
            {s.enabled ? t('twoFactor.on') : t('twoFactor.off')}
          </Badge>
        )}
      </Group>
      <Stack>
        <Text size="sm">{t('twoFactor.hint')}</Text>
        {s?.required && !s.enabled && (
          <Alert color="orange" role="alert">
            {t('twoFactor.requiredAlert')}
          </Alert>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error.message}
          </Alert>
        )}
        {codes.length > 0 && <RecoveryCodes codes={codes} />}

        <Title order={4} size="h5">
          {t('twoFactor.app')}
        </Title>
        {s && !s.totp_enabled && !setup && (
          <Group>
            <Button variant="light" onClick={() => start.mutate(undefined)} loading={start.isPending}>
              {t('twoFactor.setupApp')}
            </Button>
          </Group>
        )}
        {setup && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              enable.mutate(code.trim());
            }}
            aria-label={t('twoFactor.setupApp')}
          >
            <Stack>
              <Text size="sm">{t('twoFactor.setupHint')}</Text>
              <CopyField label={t('twoFactor.secret')} value={setup.secret} />
              <CopyField label={t('twoFactor.uri')} value={setup.otpauth_uri} />
              <TextInput
                label={t('twoFactor.code')}
                autoComplete="one-time-code"
                required
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
              />
              <Group justify="flex-end">
                <Button type="submit" loading={enable.isPending} disabled={!code.trim()}>
                  {t('twoFactor.enable')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {s?.totp_enabled && (
          <Stack>
            <Text size="sm">{t('twoFactor.recoveryLeft', { count: s.recovery_codes_left })}</Text>
            <TextInput
              label={t('twoFactor.code')}
              description={t('twoFactor.codeHint')}
              autoComplete="one-time-code"
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
            />
            <Group justify="flex-end">
              <Button
                variant="default"
                disabled={!code.trim()}
                loading={regenerate.isPending}
                onClick={() => regenerate.mutate(code.trim())}
              >
                {t('twoFactor.newCodes')}
              </Button>
              {/* The code confirms an account without a password; one with a password gives it too. */}
              {method === 'password' ? (
                <ReauthButton
                  title={t('twoFactor.disable')}
                  color="red"
                  variant="light"
                  disabled={!code.trim()}
                  loading={disable.isPending}
                  onConfirm={(proof) => disable.mutate({ code: code.trim(), ...proof })}
                >
                  {t('twoFactor.disable')}
                </ReauthButton>
              ) : (
                <Button
                  color="red"
                  variant="light"
                  disabled={!code.trim()}
                  loading={disable.isPending}
                  onClick={() => disable.mutate({ code: code.trim() })}
                >
                  {t('twoFactor.disable')}
                </Button>
              )}
            </Group>
          </Stack>
        )}

        <Title order={4} size="h5">
          {t('twoFactor.passkeys')}
        </Title>
        <Text size="sm">{t('twoFactor.passkeysHint')}</Text>
        {s && !s.passkeys_available && <Alert color="gray">{t('twoFactor.passkeysUnavailable')}</Alert>}
        {passkeys.data && passkeys.data.length === 0 && (
          <Text size="sm" c="dimmed">
            {t('twoFactor.noPasskeys')}
          </Text>
        )}
        {passkeys.data && passkeys.data.length > 0 && (
          <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={t('twoFactor.passkeys')}>
            {passkeys.data.map((p) => (
              <Group key={p.id} component="li" justify="space-between">
                <Text size="sm">
                  <b>{p.name}</b> · {fmtTime(p.created_at)} ·{' '}
                  {p.last_used_at ? t('twoFactor.lastUsed', { time: fmtTime(p.last_used_at) }) : t('twoFactor.neverUsed')}
                </Text>
                <ReauthButton
                  title={t('twoFactor.removePasskey')}
                  message={t('twoFactor.removeConfirm', { name: p.name })}
                  color="red"
                  size="xs"
                  variant="subtle"
                  loading={removePasskey.isPending}
                  onConfirm={(proof) => removePasskey.mutate({ id: p.id, proof })}
                >
                  {t('twoFactor.removePasskey')}
                </ReauthButton>
              </Group>
            ))}
          </Stack>
        )}
        {s?.passkeys_available && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              addPasskey.mutate(name.trim());
            }}
            aria-label={t('twoFactor.addPasskey')}
          >
            <Group align="flex-end">
              <TextInput
                label={t('twoFactor.passkeyName')}
                value={name}
                maxLength={64}
                onChange={(e) => setName(e.currentTarget.value)}
                style={{ flex: 1 }}
              />
              <Button type="submit" variant="light" loading={addPasskey.isPending}>
                {t('twoFactor.addPasskey')}
              </Button>
            </Group>
          </form>
        )}
      </Stack>
    </Card>
  );
}
