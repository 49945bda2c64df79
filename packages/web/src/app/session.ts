/** The logged-in user (GET /api/user/self) and role checks. */
import { useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from '../api/client';

export type SelfUser = Schemas['User'];
export const SELF_KEY = ['self'] as const;

export function useSelf() {
  return useQuery({
    queryKey: SELF_KEY,
    queryFn: () => call(client.GET('/api/user/self')),
    retry: false,
    staleTime: 30_000,
  });
}

export const isAdmin = (u: SelfUser | undefined): boolean => u?.role === 'admin' || u?.role === 'root';
export const isRoot = (u: SelfUser | undefined): boolean => u?.role === 'root';

/** Quota units per USD, read off the user's own balance (500,000 when the balance is empty). */
export function quotaPerUsd(u: SelfUser | undefined): number {
  if (u && u.quota && u.quota_usd) return Math.round(u.quota / u.quota_usd);
  return 500_000;
}
