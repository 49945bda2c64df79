/** The logged-in user (GET /api/user/self), role checks, and what the gateway tells about itself through it. */
import { useQuery } from '@tanstack/react-query';
import { call, client, type Schemas } from '../api/client';

export type SelfUser = Schemas['SelfUser'];
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

/** Quota units per USD (QUOTA_PER_USD), as the gateway says. */
export function quotaPerUsd(u: SelfUser | undefined): number {
  return u?.quota_per_usd || 500_000;
}

/** Where callers reach the gateway: PUBLIC_URL when the operator set it, else the address this browser used. */
export function gatewayAddress(u: SelfUser | undefined): string {
  return (u?.public_url ?? window.location.origin).replace(/\/+$/, '');
}
