/**
 * The one create/edit dialog: a form that validates before sending, shows the server's message when
 * refused, and closes on success.
 */
import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useErrorText } from './ErrorState';

export function FormModal({
  opened,
  onClose,
  title,
  onSubmit,
  error,
  pending,
  submitLabel,
  children,
  size = 'lg',
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  onSubmit: (e?: FormEvent<HTMLFormElement>) => void;
  error?: Error | null;
  pending?: boolean;
  submitLabel?: string;
  children: ReactNode;
  size?: string;
}) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  return (
    <Modal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} title={title} size={size} centered>
      <form onSubmit={onSubmit} noValidate aria-label={title}>
        <Stack>
          {error && (
            <Alert color="red" role="alert" title={t('error.refused')}>
              {errorText(error)}
            </Alert>
          )}
          {children}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={pending}>
              {submitLabel ?? t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
