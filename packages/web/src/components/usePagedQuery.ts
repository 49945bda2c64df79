/**
 * Server-paged list state: filters, page and page size, and the query that fetches one page. A change
 * of filter goes back to page 1; applying the same filters again fetches the page again (Apply is how
 * a list is refreshed); the previous page stays on screen while the next loads.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

export interface PageData<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export function usePagedQuery<T, F extends object, D extends PageData<T> = PageData<T>>(
  key: string,
  initialFilters: F,
  fetchPage: (q: F & { page: number; page_size: number }) => Promise<D>,
) {
  const [filters, setFiltersState] = useState<F>(initialFilters);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSizeState] = useState(20);
  const query = useQuery({
    queryKey: [key, filters, page, pageSize],
    queryFn: () => fetchPage({ ...filters, page, page_size: pageSize }),
    placeholderData: keepPreviousData,
  });
  return {
    query,
    filters,
    page,
    pageSize,
    setPage,
    setPageSize: (n: number) => {
      setPageSizeState(n);
      setPage(1);
    },
    setFilters: (f: F) => {
      if (page === 1 && JSON.stringify(f) === JSON.stringify(filters)) void query.refetch();
      else {
        setFiltersState(f);
        setPage(1);
      }
    },
    /** props for DataTable */
    table: {
      rows: query.data?.items,
      total: query.data?.total,
      page,
      pageSize,
      onPage: setPage,
      onPageSize: (n: number) => {
        setPageSizeState(n);
        setPage(1);
      },
      loading: query.isFetching,
      error: query.error,
      onRetry: () => void query.refetch(),
    },
  };
}

/** Drops empty strings and undefined, so the query string names only set filters. */
export function compact<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== '' && v !== undefined && v !== null) (out as Record<string, unknown>)[k] = v;
  return out;
}
