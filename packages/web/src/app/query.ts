/** The TanStack Query client: no retries for refusals (4xx), a few for network errors. */
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => err instanceof ApiError && (err.isNetwork || err.status >= 500) && count < 2,
    },
  },
});
