/**
 * The one create/edit dialog: a form that validates before sending, shows the server's message when
 * refused (and, given the form, the refusal beside the input of the field it names), and closes on
 * success.
 */
import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import { useEffect, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../api/client';
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
  form,
  fieldPath = (f) => f.replace(/\[(\d+)\]/g, '.$1'),
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
  /** The dialog's form (Mantine's useForm): a refusal naming a field is shown beside its input. */
  form?: { setFieldError: (path: string, error: ReactNode) => void };
  /** The form input that shows a refusal of a field the server names (default: the field's path, `a[0]` as `a.0`). */
  fieldPath?: (field: string) => string;
}) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const field = error instanceof ApiError ? error.field : undefined;
  useEffect(() => {
    if (form && field && error) form.setFieldError(fieldPath(field), errorText(error));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error, field]);
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
