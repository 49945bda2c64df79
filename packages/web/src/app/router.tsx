/**
 * Routes: the login page and the console layout with one lazily loaded chunk per page, each with its
 * own error boundary. A 401 from any API call returns to /login?next=<where the user was>.
 */
import { createBrowserRouter, type RouteObject } from 'react-router';
import { setUnauthorizedHandler } from '../api/client';
import { PageLoader } from '../components/PageLoader';
import { RouteError } from '../components/RouteError';
import { queryClient } from './query';
import { clearSignedInHint, loginPath, PUBLIC_PATHS, signedInHint } from './login-path';

type PageModule = { default: React.ComponentType };
const page = (load: () => Promise<PageModule>): Pick<RouteObject, 'lazy' | 'ErrorBoundary' | 'HydrateFallback'> => ({
  lazy: async () => ({ Component: (await load()).default }),
  ErrorBoundary: RouteError,
  HydrateFallback: PageLoader,
});
/** Every page but the login page needs the component library's whole style sheet (app/first-styles.ts). */
const styled = (load: () => Promise<PageModule>) => () => Promise.all([load(), import('./all-styles')]).then(([m]) => m);

// Signed out (no hint cookie, see login-path.ts) on a page that needs a session: straight to the login
// page, before the router starts, so the layout is neither loaded nor asks /api/user/self for a 401.
if (!signedInHint() && !PUBLIC_PATHS.includes(location.pathname)) history.replaceState(history.state, '', loginPath());

export const router = createBrowserRouter([
  { path: '/login', ...page(() => import('../pages/login/LoginPage')) },
  { path: '/signup', ...page(styled(() => import('../pages/signup/SignupPage'))) },
  { path: '/forgot-password', ...page(styled(() => import('../pages/signup/ForgotPasswordPage'))) },
  { path: '/reset-password', ...page(styled(() => import('../pages/signup/ResetPasswordPage'))) },
  { path: '/verify-email', ...page(styled(() => import('../pages/signup/VerifyEmailPage'))) },
  { path: '/pricing', ...page(styled(() => import('../pages/pricing/PublicPricingPage'))) },
  {
    path: '/',
    ...page(styled(() => import('./Layout'))),
    children: [
      { index: true, ...page(() => import('./HomeRedirect')) },
      // operator pages (admin, root)
      { path: 'dashboard', ...page(() => import('../pages/dashboard/DashboardPage')) },
      { path: 'channels', ...page(() => import('../pages/channels/ChannelsPage')) },
      { path: 'users', ...page(() => import('../pages/users/UsersPage')) },
      { path: 'all-keys', ...page(() => import('../pages/keys/AllKeysPage')) },
      { path: 'prices', ...page(() => import('../pages/prices/PricesPage')) },
      { path: 'logs', ...page(() => import('../pages/logs/AllLogsPage')) },
      { path: 'tasks', ...page(() => import('../pages/tasks/AllTasksPage')) },
      { path: 'audit', ...page(() => import('../pages/audit/AuditPage')) },
      { path: 'plugins', ...page(() => import('../pages/plugins/PluginsPage')) },
      { path: 'guardrails', ...page(() => import('../pages/guardrails/GuardrailsPage')) },
      { path: 'settings', ...page(() => import('../pages/settings/SettingsPage')) },
      { path: 'sso', ...page(() => import('../pages/sso/SsoProvidersPage')) },
      { path: 'mcp-servers', ...page(() => import('../pages/mcp/McpServersPage')) },
      { path: 'teams', ...page(() => import('../pages/teams/TeamsAdminPage')) },
      // every user
      { path: 'overview', ...page(() => import('../pages/overview/OverviewPage')) },
      { path: 'keys', ...page(() => import('../pages/keys/OwnKeysPage')) },
      { path: 'my-logs', ...page(() => import('../pages/logs/OwnLogsPage')) },
      { path: 'my-tasks', ...page(() => import('../pages/tasks/OwnTasksPage')) },
      { path: 'playground', ...page(() => import('../pages/playground/PlaygroundPage')) },
      { path: 'models', ...page(() => import('../pages/models/ModelsPage')) },
      { path: 'profile', ...page(() => import('../pages/profile/ProfilePage')) },
      { path: 'wallet', ...page(() => import('../pages/wallet/WalletPage')) },
      { path: 'redemption', ...page(() => import('../pages/redemption/RedemptionPage')) },
      { path: 'plans', ...page(() => import('../pages/plans/PlansPage')) },
      { path: 'plan', ...page(() => import('../pages/plans/MyPlanPage')) },
      { path: 'my-teams', ...page(() => import('../pages/teams/MyTeamsPage')) },
      { path: 'team/:id', ...page(() => import('../pages/teams/TeamPage')) },
      { path: 'team-invite', ...page(() => import('../pages/teams/TeamInvitePage')) },
      { path: '*', ...page(() => import('./NotFound')) },
    ],
  },
]);

setUnauthorizedHandler(() => {
  clearSignedInHint();
  if (location.pathname.startsWith('/login')) return;
  queryClient.clear();
  void router.navigate(loginPath(), { replace: true });
});
