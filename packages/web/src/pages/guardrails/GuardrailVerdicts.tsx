/**
 * The dashboard's guardrail card (root): this node's guardrail verdicts by plugin and action
 * (docs/guardrails.md). Nothing is shown while no guardrail has answered a call.
 */
import { Card, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';

const ACTIONS = ['allow', 'block', 'mask', 'annotate', 'error'] as const;

export function GuardrailVerdicts() {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['guardrail-stats'],
    queryFn: () => call(client.GET('/api/plugin/guardrail/stats')),
    refetchOnMount: 'always',
  });
  const rows = Object.entries(q.data ?? {});
  if (rows.length === 0) return null;
  return (
    <Card withBorder mt="md">
      <Title order={4} mb="xs">
        {t('guardrails.verdicts')}
      </Title>
      <Table aria-label={t('guardrails.verdicts')}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('guardrails.plugin')}</Table.Th>
            {ACTIONS.map((a) => (
              <Table.Th key={a} scope="col" ta="right">
                {a}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([plugin, counts]) => (
            <Table.Tr key={plugin}>
              <Table.Td ff="monospace">{plugin}</Table.Td>
              {ACTIONS.map((a) => (
                <Table.Td key={a} ta="right">
                  {counts[a] ?? 0}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
