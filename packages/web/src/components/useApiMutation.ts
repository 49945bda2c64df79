/**
 * A mutation that, when done, refreshes the given lists and says so; refusals keep the server's message
 * on `error` (forms show it) and, for actions outside a form, in a red notification.
 */
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useErrorText } from './ErrorState';

export function useApiMutation<TVars, TData>(
  fn: (v: TVars) => Promise<TData>,
  opts: {
    invalidate?: string[];
    success?: string | ((d: TData) => string);
    notifyError?: boolean;
    onSuccess?: (d: TData, v: TVars) => void;
  } = {},
) {
  const qc = useQueryClient();
  const { t } = useTranslation();
  const errorText = useErrorText();
  return useMutation({
    mutationFn: fn,
    onSuccess: (d, v) => {
      for (const k of opts.invalidate ?? []) void qc.invalidateQueries({ queryKey: [k] });
      const msg = typeof opts.success === 'function' ? opts.success(d) : opts.success;
      if (msg) notifications.show({ color: 'green', message: msg, closeButtonProps: { 'aria-label': t('common.close') } });
      opts.onSuccess?.(d, v);
    },
    onError: (e) => {
      if (opts.notifyError)
        notifications.show({
          color: 'red',
          title: t('error.refused'),
          message: errorText(e),
          closeButtonProps: { 'aria-label': t('common.close') },
        });
    },
  });
}
