/** The console's pages in the navigation, with the role each needs. */
import type { ComponentType } from 'react';
import {
  IconApps,
  IconChartBar,
  IconCoin,
  IconFileText,
  IconHome,
  IconKey,
  IconListCheck,
  IconMessageChatbot,
  IconPlugConnected,
  IconPuzzle,
  IconSettings,
  IconUser,
  IconUsers,
  IconHistory,
} from '@tabler/icons-react';
import { IconTicket, IconWallet } from '@tabler/icons-react';
import { IconLogin2, IconShieldCheck, IconTool } from '@tabler/icons-react';
import { IconCalendarStats, IconUsersGroup } from '@tabler/icons-react';

export type Role = 'user' | 'admin' | 'root';
export interface NavItem {
  path: string;
  label: string;
  role: Role;
  icon: ComponentType<{ size?: number; stroke?: number }>;
}

export const OPERATOR_NAV: NavItem[] = [
  { path: '/dashboard', label: 'nav.dashboard', role: 'admin', icon: IconChartBar },
  { path: '/channels', label: 'nav.channels', role: 'admin', icon: IconPlugConnected },
  { path: '/users', label: 'nav.users', role: 'admin', icon: IconUsers },
  { path: '/teams', label: 'nav.teams', role: 'admin', icon: IconUsersGroup },
  { path: '/all-keys', label: 'nav.allKeys', role: 'admin', icon: IconKey },
  { path: '/prices', label: 'nav.prices', role: 'admin', icon: IconCoin },
  { path: '/logs', label: 'nav.logs', role: 'admin', icon: IconFileText },
  { path: '/tasks', label: 'nav.tasks', role: 'admin', icon: IconListCheck },
  { path: '/redemption', label: 'topup.navCodes', role: 'admin', icon: IconTicket },
  { path: '/plans', label: 'nav.plans', role: 'admin', icon: IconCalendarStats },
  { path: '/audit', label: 'nav.audit', role: 'admin', icon: IconHistory },
  { path: '/plugins', label: 'nav.plugins', role: 'root', icon: IconPuzzle },
  { path: '/guardrails', label: 'nav.guardrails', role: 'root', icon: IconShieldCheck },
  { path: '/settings', label: 'nav.settings', role: 'root', icon: IconSettings },
  { path: '/sso', label: 'nav.sso', role: 'admin', icon: IconLogin2 },
  { path: '/mcp-servers', label: 'nav.mcp', role: 'admin', icon: IconTool },
];

export const USER_NAV: NavItem[] = [
  { path: '/overview', label: 'nav.overview', role: 'user', icon: IconHome },
  { path: '/keys', label: 'nav.keys', role: 'user', icon: IconKey },
  { path: '/my-logs', label: 'nav.myLogs', role: 'user', icon: IconFileText },
  { path: '/my-tasks', label: 'nav.myTasks', role: 'user', icon: IconListCheck },
  { path: '/playground', label: 'nav.playground', role: 'user', icon: IconMessageChatbot },
  { path: '/models', label: 'nav.models', role: 'user', icon: IconApps },
  { path: '/wallet', label: 'topup.navWallet', role: 'user', icon: IconWallet },
  { path: '/plan', label: 'nav.myPlan', role: 'user', icon: IconCalendarStats },
  { path: '/my-teams', label: 'nav.myTeams', role: 'user', icon: IconUsersGroup },
  { path: '/profile', label: 'nav.profile', role: 'user', icon: IconUser },
];

const RANK: Record<Role, number> = { user: 0, admin: 1, root: 2 };
export const allows = (have: string | undefined, need: Role): boolean => RANK[(have as Role) ?? 'user'] >= RANK[need];
