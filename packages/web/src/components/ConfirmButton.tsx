/** A button that asks first (a dialog with the consequence) and then runs the action. */
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function ConfirmButton({ children, title, message, confirmLabel, onConfirm, loading, ...button }: ButtonProps & {
  children: ReactNode; title: string; message: ReactNode; confirmLabel?: string; onConfirm: () => void; loading?: boolean;
  'aria-label'?: string;
}) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure();
  return (
    <>
      <Button {...button} loading={loading} onClick={(e) => { e.stopPropagation(); open(); }}>{children}</Button>
      <Modal opened={opened} onClose={close} title={title} centered>
        <Text size="sm">{message}</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={close}>{t('common.cancel')}</Button>
          <Button color={button.color ?? 'red'} onClick={() => { close(); onConfirm(); }}>{confirmLabel ?? title}</Button>
        </Group>
      </Modal>
    </>
  );
}
