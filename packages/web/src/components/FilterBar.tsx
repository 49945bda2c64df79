/**
 * The filter row above a list: fields bound to a small form, applied with Apply (or Enter) and cleared
 * with Reset, so a list is fetched once per change rather than per keystroke.
 */
import { Button, Group, Paper } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function FilterBar<V extends Record<string, unknown>>({
  form,
  onApply,
  children,
  label,
}: {
  form: UseFormReturnType<V>;
  onApply: (v: V) => void;
  children: ReactNode;
  label: string;
}) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="sm" mb="md">
      <form onSubmit={form.onSubmit(onApply)} role="search" aria-label={label}>
        <Group align="flex-end" gap="sm" wrap="wrap">
          {children}
          <Group gap="xs">
            <Button type="submit" variant="light">
              {t('common.apply')}
            </Button>
            <Button
              variant="default"
              onClick={() => {
                form.reset();
                onApply(form.getInitialValues());
              }}
            >
              {t('common.reset')}
            </Button>
          </Group>
        </Group>
      </form>
    </Paper>
  );
}
