/**
 * The console's frame: header (language, theme, user menu), navigation by role, and the page. Waits
 * for the session; without one it goes to the login page; a page above the user's role says so.
 */
import { AppShell, Burger, Group, Loader, NavLink, ScrollArea, Stack, Text, Title, Center, Alert } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Outlet, useLocation } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorState } from '../components/ErrorState';
import { HeaderControls } from '../components/HeaderControls';
import { UserMenu } from '../components/UserMenu';
import { TeamSwitcher } from '../components/TeamSwitcher';
import { Brand } from '../components/Brand';
import { allows, OPERATOR_NAV, USER_NAV, type NavItem } from './nav';
import { loginPath } from './login-path';
import { isAdmin, useSelf } from './session';
import { TwoFactorGate } from './TwoFactorGate';

export default function Layout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const self = useSelf();

  if (self.isPending)
    return (
      <Center h="100vh">
        <Loader role="status" aria-label={t('common.loading')} />
      </Center>
    );
  if (self.error) {
    if (self.error instanceof ApiError && self.error.status === 401) return <Navigate to={loginPath()} replace />;
    return (
      <Center h="100vh" p="md">
        <ErrorState error={self.error} onRetry={() => void self.refetch()} />
      </Center>
    );
  }
  const user = self.data;
  const current = [...OPERATOR_NAV, ...USER_NAV].find((n) => location.pathname === n.path || location.pathname.startsWith(`${n.path}/`));
  const forbidden = current && !allows(user.role, current.role);

  const links = (items: NavItem[]) =>
    items
      .filter((n) => allows(user.role, n.role))
      .map((n) => (
        <NavLink
          key={n.path}
          component={Link}
          to={n.path}
          label={t(n.label as 'nav.dashboard')}
          leftSection={<n.icon size={18} stroke={1.6} />}
          active={current?.path === n.path}
          aria-current={current?.path === n.path ? 'page' : undefined}
          onClick={close}
        />
      ));

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      {/* The toasts of the signed-in pages (useApiMutation); the login page shows none, so it loads none. */}
      <Notifications position="top-right" />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('layout.toggleNav')} />
            <Brand />
          </Group>
          <Group gap="xs" wrap="nowrap">
            <TeamSwitcher />
            <HeaderControls />
            <UserMenu user={user} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('layout.navigation')}>
        <ScrollArea type="auto">
          <Stack gap={2}>
            {isAdmin(user) && (
              <Text size="xs" c="dimmed" fw={700} tt="uppercase" px="sm" pt="xs">
                {t('layout.operator')}
              </Text>
            )}
            {isAdmin(user) && links(OPERATOR_NAV)}
            <Text size="xs" c="dimmed" fw={700} tt="uppercase" px="sm" pt="sm">
              {t('layout.account')}
            </Text>
            {links(USER_NAV)}
          </Stack>
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <TwoFactorGate user={user} />
        {forbidden ? (
          <Stack>
            <Title order={2}>{t(current.label as 'nav.dashboard')}</Title>
            <Alert color="yellow" title={t('layout.forbiddenTitle')}>
              {t('layout.forbidden')}
            </Alert>
          </Stack>
        ) : (
          <Outlet />
        )}
      </AppShell.Main>
    </AppShell>
  );
}
