/** A detail view's label/value pairs as a description list. */
import { SimpleGrid, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function DetailList({ items }: { items: [string, ReactNode][] }) {
  return (
    <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} component="dl" style={{ gridTemplateColumns: 'max-content 1fr', margin: 0 }}>
      {items.map(([k, v]) => [
        <Text key={`${k}-k`} component="dt" size="sm" c="dimmed">
          {k}
        </Text>,
        <Text key={`${k}-v`} component="dd" size="sm" m={0} style={{ wordBreak: 'break-word' }}>
          {v ?? '—'}
        </Text>,
      ])}
    </SimpleGrid>
  );
}
