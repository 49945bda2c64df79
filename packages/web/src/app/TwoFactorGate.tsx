/**
 * AdminRequireTwoFactor in the console: an admin without a second factor is sent to the profile to
 * enrol one (the gateway refuses its other calls until then, docs/two-factor.md).
 */
import { useQuery } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import { call, client } from '../api/client';
import { TWO_FACTOR_KEY } from '../pages/profile/SecurityCard';
import { isAdmin, type SelfUser } from './session';

export function TwoFactorGate({ user }: { user: SelfUser }) {
  const location = useLocation();
  const admin = isAdmin(user);
  const status = useQuery({
    queryKey: [TWO_FACTOR_KEY],
    queryFn: () => call(client.GET('/api/user/2fa/status')),
    enabled: admin,
    staleTime: 30_000,
  });
  if (!admin || !status.data || location.pathname === '/profile') return null;
  return status.data.required && !status.data.enabled ? <Navigate to="/profile" replace /> : null;
}
