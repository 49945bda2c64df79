/** The product mark and name. */
import { Group, Text } from '@mantine/core';
import { IconBolt } from '@tabler/icons-react';

export function Brand({ size = 22 }: { size?: number }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <IconBolt size={size} aria-hidden color="var(--mantine-color-blue-6)" />
      <Text fw={700} size="lg" component="span">
        Gatehouse
      </Text>
    </Group>
  );
}
