/** Shown while a page's code or the session loads. */
import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export function PageLoader() {
  const { t } = useTranslation();
  return (
    <Center h="60vh">
      <Loader role="status" aria-label={t('common.loading')} />
    </Center>
  );
}
