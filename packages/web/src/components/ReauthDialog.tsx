/**
 * Confirming a sensitive change (a new access token, removing a passkey, turning the authenticator app
 * off, a new e-mail address): the field the account confirms with — its current password, or for an
 * account without one a second-factor code, or nothing within minutes of signing in
 * (GET /api/user/self `reauth`) — in a dialog (ReauthButton) or inline (ReauthField).
 */
import { Alert, Button, Group, Modal, PasswordInput, Stack, Text, TextInput, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../api/client';
import { useSelf } from '../app/session';

/** What the gateway takes as confirmation (the Reauth fields of a request body). */
export interface ReauthProof {
  password?: string;
  code?: string;
}

export type ReauthMethod = 'password' | 'second_factor' | 'recent_sign_in';

export function useReauthMethod(): ReauthMethod {
  return (useSelf().data as { reauth?: ReauthMethod } | undefined)?.reauth ?? 'password';
}

/** The proof of `value` as the request body carries it. */
export function proofOf(method: ReauthMethod, value: string): ReauthProof {
  if (method === 'password') return { password: value };
  if (method === 'second_factor') return { code: value.trim() };
  return {};
}

/** The confirmation field of this account (none for a recent sign-in: a note instead). */
export function ReauthField({ method, value, onChange }: { method: ReauthMethod; value: string; onChange: (v: string) => void }) {
  const { t } = useTranslation();
  if (method === 'password')
    return (
      <PasswordInput
        label={t('reauth.password')}
        autoComplete="current-password"
        required
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    );
  if (method === 'second_factor')
    return (
      <TextInput
        label={t('reauth.code')}
        description={t('twoFactor.codeHint')}
        autoComplete="one-time-code"
        required
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    );
  return <Text size="sm">{t('reauth.recent')}</Text>;
}

/**
 * A button that asks for the confirmation in a dialog, then calls `onConfirm` with it.
 * `secondFactorToo`: an account with a password and a second factor gives both (linking a sign-in provider).
 */
export function ReauthButton({
  children,
  title,
  message,
  onConfirm,
  loading,
  secondFactorToo,
  ...button
}: ButtonProps & {
  children: ReactNode;
  title: string;
  message?: ReactNode;
  onConfirm: (proof: ReauthProof) => void;
  loading?: boolean;
  secondFactorToo?: boolean;
}) {
  const { t } = useTranslation();
  const method = useReauthMethod();
  const [opened, { open, close }] = useDisclosure();
  const [value, setValue] = useState('');
  const [code, setCode] = useState('');
  const status = useQuery({
    queryKey: ['2fa-status'],
    queryFn: () => call(client.GET('/api/user/2fa/status')),
    enabled: !!secondFactorToo && opened,
  });
  const askCode = !!secondFactorToo && method === 'password' && !!status.data?.enabled;
  const ready = (method === 'recent_sign_in' || value.trim() !== '') && (!askCode || code.trim() !== '');
  const done = () => {
    setValue('');
    setCode('');
    close();
  };
  return (
    <>
      <Button
        {...button}
        loading={loading}
        onClick={(e) => {
          e.stopPropagation();
          open();
        }}
      >
        {children}
      </Button>
      <Modal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={done} title={title} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!ready) return;
            const proof = { ...proofOf(method, value), ...(askCode ? { code: code.trim() } : {}) };
            done();
            onConfirm(proof);
          }}
          aria-label={title}
        >
          <Stack>
            {message && <Text size="sm">{message}</Text>}
            <Alert color="gray">{t('reauth.why')}</Alert>
            <ReauthField method={method} value={value} onChange={setValue} />
            {askCode && <ReauthField method="second_factor" value={code} onChange={setCode} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={done}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color={button.color as string | undefined} disabled={!ready}>
                {title}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
