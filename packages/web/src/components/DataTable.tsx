/**
 * The one table of the console: columns, rows of one page from the server, a pager, and the loading,
 * empty and error (with Retry) states. Rows can open a detail (click or Enter).
 */
import { Box, Group, LoadingOverlay, Pagination, ScrollArea, Select, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorState } from './ErrorState';

export interface Column<T> {
  key: string;
  header: ReactNode;
  render: (row: T) => ReactNode;
  /** right-aligned numbers */
  numeric?: boolean;
}

export interface DataTableProps<T> {
  label: string;
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T) => string | number;
  total?: number;
  page?: number;
  pageSize?: number;
  onPage?: (page: number) => void;
  onPageSize?: (size: number) => void;
  loading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  onRowClick?: (row: T) => void;
  empty?: ReactNode;
}

export function DataTable<T>(p: DataTableProps<T>) {
  const { t } = useTranslation();
  const pages = p.total !== undefined && p.pageSize ? Math.max(1, Math.ceil(p.total / p.pageSize)) : 1;
  if (p.error && !p.rows) return <ErrorState error={p.error} onRetry={p.onRetry} />;
  return (
    <Box pos="relative">
      {p.error ? <ErrorState error={p.error} onRetry={p.onRetry} /> : null}
      <LoadingOverlay
        visible={!!p.loading}
        zIndex={5}
        overlayProps={{ blur: 1 }}
        loaderProps={{ role: 'status', 'aria-label': t('common.loading') } as object}
      />
      <ScrollArea type="auto">
        <Table striped highlightOnHover={!!p.onRowClick} verticalSpacing="xs" aria-label={p.label}>
          <Table.Thead>
            <Table.Tr>
              {p.columns.map((c) => (
                <Table.Th key={c.key} ta={c.numeric ? 'right' : undefined} scope="col">
                  {c.header}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.rows?.map((row) => (
              <Table.Tr
                key={p.rowKey(row)}
                onClick={p.onRowClick ? () => p.onRowClick!(row) : undefined}
                onKeyDown={
                  p.onRowClick
                    ? (e) => {
                        if (e.key === 'Enter') p.onRowClick!(row);
                      }
                    : undefined
                }
                tabIndex={p.onRowClick ? 0 : undefined}
                style={p.onRowClick ? { cursor: 'pointer' } : undefined}
              >
                {p.columns.map((c) => (
                  <Table.Td key={c.key} ta={c.numeric ? 'right' : undefined}>
                    {c.render(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
            {p.rows && p.rows.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={p.columns.length}>
                  <Text c="dimmed" ta="center" py="md">
                    {p.empty ?? t('common.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {p.onPage && p.total !== undefined && (
        <Group justify="space-between" mt="sm">
          <Text size="sm" c="dimmed">
            {t('common.totalRows', { count: p.total })}
          </Text>
          <Group gap="xs">
            {p.onPageSize && (
              <Select
                aria-label={t('common.pageSize')}
                size="xs"
                w={90}
                allowDeselect={false}
                data={['10', '20', '50', '100']}
                value={String(p.pageSize)}
                onChange={(v) => v && p.onPageSize!(Number(v))}
              />
            )}
            <Pagination
              total={pages}
              value={p.page}
              onChange={p.onPage}
              size="sm"
              siblings={1}
              getControlProps={(control) => ({ 'aria-label': t(`common.pager.${control}`) })}
              getItemProps={(n) => ({ 'aria-label': t('common.pager.page', { n }) })}
            />
          </Group>
        </Group>
      )}
    </Box>
  );
}
