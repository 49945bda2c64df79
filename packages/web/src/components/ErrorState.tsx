/** A failed load: the server's message (or "cannot reach the gateway") and a Retry button. */
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';

/**
 * The text to show for a failed call: "cannot reach the gateway"; in a language other than English,
 * the translation of the error's code (`errorCode.<code>`, the field named) when there is one; else
 * the server's message.
 */
export function useErrorText(): (e: unknown) => string {
  const { t, i18n } = useTranslation();
  return (e) => {
    if (e instanceof ApiError && e.isNetwork) return `${t('error.network')}: ${t('error.networkBody')}`;
    if (e instanceof ApiError && e.code && !i18n.language.startsWith('en')) {
      const key = `errorCode.${e.code}`;
      if (i18n.exists(key)) return t(key as 'errorCode.invalid_field', { field: e.field ?? '' });
    }
    return e instanceof Error ? e.message : String(e);
  };
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const network = error instanceof ApiError ? error.isNetwork : !(error instanceof Error);
  const message = useErrorText()(error);
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
