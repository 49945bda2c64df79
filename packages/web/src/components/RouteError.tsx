/** Error boundary of every route: a failed chunk load or a render error shows a message, never a blank page. */
import { Button, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';

export function RouteError() {
  const { t } = useTranslation();
  const err = useRouteError();
  const message = isRouteErrorResponse(err) ? `${err.status} ${err.statusText}` : err instanceof Error ? err.message : String(err);
  return (
    <Container size="sm" py="xl">
      <Stack role="alert">
        <Title order={2}>{t('error.pageTitle')}</Title>
        <Text>{t('error.pageBody')}</Text>
        <Text size="sm" c="dimmed" ff="monospace">
          {message}
        </Text>
        <Group>
          <Button onClick={() => location.reload()}>{t('common.reload')}</Button>
          <Button variant="default" component="a" href="/">
            {t('notFound.home')}
          </Button>
        </Group>
      </Stack>
    </Container>
  );
}
