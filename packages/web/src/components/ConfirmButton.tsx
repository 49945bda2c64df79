/** Asking before acting: a controlled dialog (ConfirmDialog) and a button that opens one (ConfirmButton). */
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function ConfirmDialog({
  opened,
  onClose,
  title,
  message,
  confirmLabel,
  onConfirm,
  color = 'red',
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  color?: string;
}) {
  const { t } = useTranslation();
  return (
    <Modal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} title={title} centered>
      <Text size="sm">{message}</Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button
          color={color}
          onClick={() => {
            onClose();
            onConfirm();
          }}
        >
          {confirmLabel ?? title}
        </Button>
      </Group>
    </Modal>
  );
}

export function ConfirmButton({
  children,
  title,
  message,
  confirmLabel,
  onConfirm,
  loading,
  ...button
}: ButtonProps & {
  children: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  loading?: boolean;
}) {
  const [opened, { open, close }] = useDisclosure();
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
      <ConfirmDialog
        opened={opened}
        onClose={close}
        title={title}
        message={message}
        confirmLabel={confirmLabel}
        onConfirm={onConfirm}
        color={button.color as string | undefined}
      />
    </>
  );
}
