/** The price editor's preview: what a call with the usage entered would cost at the price being edited. */
import { Alert, Button, Group, NumberInput, Paper, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { useApiMutation } from '../../components/useApiMutation';

type Usage = { input: number | string; output: number | string; searches: number | string; tier: string };
const count = (v: number | string) => (v === '' || v == null ? 0 : Math.max(0, Math.round(Number(v))));

/** `price()` gives the price as the form holds it (null when the form does not validate). */
export function PricePreview({ price }: { price: () => Schemas['PriceInput'] | null }) {
  const { t, i18n } = useTranslation();
  const [u, setU] = useState<Usage>({ input: 1000, output: 1000, searches: 0, tier: '' });
  const preview = useApiMutation((p: Schemas['PriceInput']) =>
    call(
      client.POST('/api/price/preview', {
        body: {
          price: p,
          usage: {
            input_tokens: count(u.input),
            output_tokens: count(u.output),
            ...(count(u.searches) ? { server_tools: { web_search: count(u.searches) } } : {}),
            ...(u.tier.trim() ? { service_tier: u.tier.trim() } : {}),
          },
        },
      }),
    ),
  );
  const usd = (n: number) => n.toLocaleString(i18n.language, { style: 'currency', currency: 'USD', maximumFractionDigits: 6 });
  const set = (k: keyof Usage) => (v: number | string) => setU((x) => ({ ...x, [k]: v }));
  return (
    <Paper withBorder p="sm" aria-label={t('prices.preview')} component="section">
      <Text fw={500} size="sm" mb="xs">
        {t('prices.preview')}
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <NumberInput label={t('prices.previewInput')} min={0} value={u.input} onChange={set('input')} />
        <NumberInput label={t('prices.previewOutput')} min={0} value={u.output} onChange={set('output')} />
        <NumberInput label={t('prices.previewSearches')} min={0} value={u.searches} onChange={set('searches')} />
        <TextInput label={t('prices.previewTier')} value={u.tier} onChange={(e) => set('tier')(e.currentTarget.value)} />
      </SimpleGrid>
      <Group mt="sm" align="center">
        <Button
          variant="light"
          onClick={() => {
            const p = price();
            if (p) preview.mutate(p);
          }}
          loading={preview.isPending}
        >
          {t('prices.previewRun')}
        </Button>
        {preview.data && !preview.error && (
          <Text role="status">
            {t('prices.previewResult', { usd: usd(preview.data.usd), quota: preview.data.quota.toLocaleString(i18n.language) })}
            {preview.data.tier !== null
              ? ` · ${t('prices.previewTierReached', { above: preview.data.tier.toLocaleString(i18n.language) })}`
              : ''}
          </Text>
        )}
      </Group>
      {preview.error && (
        <Alert color="red" role="alert" mt="sm">
          {preview.error.message}
        </Alert>
      )}
    </Paper>
  );
}
