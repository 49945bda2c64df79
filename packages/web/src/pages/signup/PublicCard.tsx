/** The frame of the pages shown without logging in (sign-up, forgot and reset password, verify e-mail), as the login page. */
import { Anchor, Center, Group, Paper, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call, client } from '../../api/client';
import { Brand } from '../../components/Brand';
import { HeaderControls } from '../../components/HeaderControls';

export function PublicCard({ children }: { children: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <Center mih="100vh" p="md">
      <Stack w={420} maw="100%">
        <Group justify="space-between">
          <Title order={1} size="h2">
            <Brand size={26} />
          </Title>
          <HeaderControls />
        </Group>
        <Paper withBorder shadow="sm" p="lg" radius="md" component="main">
          {children}
        </Paper>
        <Anchor component={Link} to="/login" size="sm" ta="center">
          {t('signup.backToLogin')}
        </Anchor>
      </Stack>
    </Center>
  );
}

/** The public sign-up settings (GET /api/user/signup). */
export function useSignupSettings() {
  return useQuery({ queryKey: ['signup-settings'], queryFn: () => call(client.GET('/api/user/signup')), staleTime: 60_000 });
}
