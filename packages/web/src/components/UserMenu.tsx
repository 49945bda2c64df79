/** The user's name with a menu: profile, log out. */
import { Button, Menu } from '@mantine/core';
import { IconChevronDown, IconLogout, IconUser } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { client } from '../api/client';
import type { SelfUser } from '../app/session';

export function UserMenu({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const logout = async () => {
    try {
      await client.POST('/api/user/logout');
    } catch {}
    qc.clear();
    void navigate('/login', { replace: true });
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" rightSection={<IconChevronDown size={14} />} aria-label={t('layout.userMenu', { name: user.username })}>
          {user.display_name || user.username}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to="/profile" leftSection={<IconUser size={14} />}>
          {t('nav.profile')}
        </Menu.Item>
        <Menu.Item leftSection={<IconLogout size={14} />} onClick={() => void logout()}>
          {t('layout.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
