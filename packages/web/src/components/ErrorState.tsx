/** A failed load: the server's message (or "cannot reach the gateway") and a Retry button. */
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';

/** The text to show for a failed call: the server's message, or "cannot reach the gateway". */
export function useErrorText(): (e: unknown) => string {
  const { t } = useTranslation();
  return (e) =>
    e instanceof ApiError && e.isNetwork ? `${t('error.network')}: ${t('error.networkBody')}` : e instanceof Error ? e.message : String(e);
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const network = error instanceof ApiError ? error.isNetwork : !(error instanceof Error);
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" icon={<IconAlertTriangle size={18} />} title={network ? t('error.network') : t('error.failed')} role="alert">
      <Group justify="space-between" align="center" wrap="wrap">
        <Text size="sm">{network ? t('error.networkBody') : message}</Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        )}
      </Group>
    </Alert>
  );
}
