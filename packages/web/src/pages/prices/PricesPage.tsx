/**
 * Prices (admin): per-model token, cached, per-request prices, the rules beyond flat rates (tiers,
 * modalities, web searches, service tiers) or an expression, with a preview of what a call would cost;
 * the list-price catalog; and group ratios.
 */
import { ActionIcon, Alert, Button, Group, NumberInput, SimpleGrid, Stack, Tabs, Textarea, TextInput, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { validators } from '../../components/fields';
import { FilterBar } from '../../components/FilterBar';
import { ModelPicker } from '../../components/pickers';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { compact, usePagedQuery } from '../../components/usePagedQuery';
import { fmtTime } from '../../lib/format';
import { PricePreview } from './PricePreview';
import { CatalogPanel } from './CatalogPanel';

type Price = Schemas['Price'];
type Ratio = Schemas['GroupRatio'];
const num = (v: number | string) => (v === '' || v === null || v === undefined ? null : Number(v));
const show = (v: number | null) => (v == null ? '—' : `$${v}`);
/** The rules kept as numbers in the form; tiers, service tiers and other server tools as JSON. */
const RULE_NUMBERS = ['audio_input', 'audio_output', 'image_input', 'image_output', 'reasoning', 'web_search'] as const;
const RULE_JSON = ['tiers', 'service_tiers', 'server_tools'] as const;

function rulesJsonOf(p: Price | null): string {
  if (!p) return '';
  const o: Record<string, unknown> = {};
  for (const k of RULE_JSON) if (p[k] !== undefined) o[k] = p[k];
  return Object.keys(o).length ? JSON.stringify(o, null, 2) : '';
}

/** The price a form holds, as the API takes it (throws on rules that are not a JSON object). */
function priceBody(x: Record<string, string | number>): Schemas['PriceInput'] {
  const rules = String(x.rules ?? '').trim();
  const extra = rules ? (JSON.parse(rules) as Record<string, unknown>) : {};
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw new Error('not an object');
  const body: Record<string, unknown> = {
    model: String(x.model).trim(),
    input: num(x.input),
    output: num(x.output),
    cached_input: num(x.cached_input),
    cache_write_5m: num(x.cache_write_5m),
    cache_write_1h: num(x.cache_write_1h),
    per_request: num(x.per_request),
    expression: String(x.expression ?? '').trim() || null,
    ...extra,
  };
  for (const k of RULE_NUMBERS) if (num(x[k]) !== null) body[k] = num(x[k]);
  return body as Schemas['PriceInput'];
}

function PriceForm({ price, onClose }: { price: Price | null; onClose: () => void }) {
  const { t } = useTranslation();
  const v = validators(t);
  const form = useForm({
    initialValues: {
      model: price?.model ?? '',
      input: price?.input ?? '',
      output: price?.output ?? '',
      cached_input: price?.cached_input ?? '',
      cache_write_5m: price?.cache_write_5m ?? '',
      cache_write_1h: price?.cache_write_1h ?? '',
      per_request: price?.per_request ?? '',
      expression: price?.expression ?? '',
      ...Object.fromEntries(RULE_NUMBERS.map((k) => [k, price?.[k] ?? ''])),
      rules: rulesJsonOf(price),
    } as Record<string, string | number>,
    validate: {
      model: v.required,
      input: v.nonNegative,
      output: v.nonNegative,
      cached_input: v.nonNegative,
      cache_write_5m: v.nonNegative,
      cache_write_1h: v.nonNegative,
      per_request: v.nonNegative,
      ...Object.fromEntries(RULE_NUMBERS.map((k) => [k, v.nonNegative])),
      rules: (x) => {
        try {
          priceBody({ rules: x });
          return null;
        } catch {
          return t('prices.rulesInvalid');
        }
      },
      expression: (_x, all) =>
        [all.input, all.output, all.per_request, all.expression, all.web_search, all.rules].every((y) => y === '' || y == null)
          ? t('prices.needOne')
          : null,
    },
  });
  const save = useApiMutation((x: Record<string, string | number>) => call(client.PUT('/api/price', { body: priceBody(x) })), {
    invalidate: ['prices'],
    success: t('common.saved'),
    onSuccess: onClose,
  });
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={price ? t('prices.editTitle', { model: price.model }) : t('prices.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
    >
      <ModelPicker
        label={t('prices.model')}
        description={price ? undefined : t('prices.modelHint')}
        required
        disabled={!!price}
        {...form.getInputProps('model')}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput label={t('prices.input')} min={0} decimalScale={6} prefix="$" {...form.getInputProps('input')} />
        <NumberInput label={t('prices.output')} min={0} decimalScale={6} prefix="$" {...form.getInputProps('output')} />
        <NumberInput label={t('prices.cachedInput')} min={0} decimalScale={6} prefix="$" {...form.getInputProps('cached_input')} />
        <NumberInput
          label={t('prices.cacheWrite5m')}
          description={t('prices.cacheWrite5mHint')}
          min={0}
          decimalScale={6}
          prefix="$"
          {...form.getInputProps('cache_write_5m')}
        />
        <NumberInput
          label={t('prices.cacheWrite1h')}
          description={t('prices.cacheWrite1hHint')}
          min={0}
          decimalScale={6}
          prefix="$"
          {...form.getInputProps('cache_write_1h')}
        />
        <NumberInput label={t('prices.perRequest')} min={0} decimalScale={6} prefix="$" {...form.getInputProps('per_request')} />
        {RULE_NUMBERS.map((k) => (
          <NumberInput key={k} label={t(`prices.rule.${k}`)} min={0} decimalScale={6} prefix="$" {...form.getInputProps(k)} />
        ))}
      </SimpleGrid>
      <Textarea
        label={t('prices.rules')}
        description={t('prices.rulesHint')}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        autosize
        minRows={2}
        {...form.getInputProps('rules')}
      />
      <Textarea
        label={t('prices.expression')}
        description={t('prices.expressionHint')}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        autosize
        minRows={1}
        {...form.getInputProps('expression')}
      />
      <PricePreview price={() => (form.validate().hasErrors ? null : priceBody(form.getValues()))} />
    </FormModal>
  );
}

function PriceList() {
  const { t } = useTranslation();
  const list = usePagedQuery<Price, { keyword: string }>('prices', { keyword: '' }, (q) =>
    call(client.GET('/api/price', { params: { query: compact(q) } })),
  );
  const filters = useForm({ initialValues: list.filters });
  const [editing, setEditing] = useState<Price | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Price | null>(null);
  const remove = useApiMutation((model: string) => call(client.DELETE('/api/price/{model}', { params: { path: { model } } })), {
    invalidate: ['prices'],
    notifyError: true,
    success: t('prices.deleted'),
  });
  const columns: Column<Price>[] = [
    { key: 'model', header: t('prices.model'), render: (p) => p.model },
    { key: 'input', header: t('prices.inputShort'), numeric: true, render: (p) => show(p.input) },
    { key: 'output', header: t('prices.outputShort'), numeric: true, render: (p) => show(p.output) },
    { key: 'cached', header: t('prices.cachedShort'), numeric: true, render: (p) => show(p.cached_input) },
    { key: 'req', header: t('prices.perRequest'), numeric: true, render: (p) => show(p.per_request) },
    { key: 'expr', header: t('prices.expression'), render: (p) => p.expression ?? (p.tiers?.length ? t('prices.tiered') : '—') },
    { key: 'updated', header: t('prices.updated'), render: (p) => fmtTime(p.updated_at) },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (p) => (
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('common.edit')}>
            <ActionIcon variant="subtle" aria-label={t('prices.editTitle', { model: p.model })} onClick={() => setEditing(p)}>
              <IconPencil size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('common.delete')}>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('prices.deleteNamed', { model: p.model })}
              onClick={() => setDeleting(p)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ),
    },
  ];
  return (
    <Stack gap={0}>
      <Group justify="flex-end" mb="sm">
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
          {t('prices.create')}
        </Button>
      </Group>
      <FilterBar form={filters} onApply={list.setFilters} label={t('prices.filters')}>
        <TextInput label={t('prices.model')} {...filters.getInputProps('keyword')} />
      </FilterBar>
      <DataTable label={t('prices.tableLabel')} columns={columns} rowKey={(p) => p.model} {...list.table} />
      {editing !== undefined && <PriceForm price={editing} onClose={() => setEditing(undefined)} />}
      <ConfirmDialog
        opened={!!deleting}
        onClose={() => setDeleting(null)}
        title={t('prices.deleteTitle')}
        confirmLabel={t('common.delete')}
        message={t('prices.confirmDelete', { model: deleting?.model ?? '' })}
        onConfirm={() => deleting && remove.mutate(deleting.model)}
      />
    </Stack>
  );
}

function RatioList() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['ratios'], queryFn: () => call(client.GET('/api/group_ratio')) });
  const form = useForm({
    initialValues: { group: '', ratio: 1 as number | string },
    validate: { group: validators(t).required, ratio: (x) => (x === '' || Number(x) < 0 ? t('validation.nonNegative') : null) },
  });
  const save = useApiMutation(
    (x: { group: string; ratio: number | string }) =>
      call(client.PUT('/api/group_ratio', { body: { group: x.group.trim(), ratio: Number(x.ratio) } })),
    { invalidate: ['ratios'], success: t('common.saved'), onSuccess: () => form.reset() },
  );
  const remove = useApiMutation((group: string) => call(client.DELETE('/api/group_ratio/{group}', { params: { path: { group } } })), {
    invalidate: ['ratios'],
    notifyError: true,
  });
  const columns: Column<Ratio>[] = [
    { key: 'group', header: t('prices.group'), render: (r) => r.group },
    { key: 'ratio', header: t('prices.ratio'), numeric: true, render: (r) => `× ${r.ratio}` },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (r) => (
        <Group gap={4}>
          <ActionIcon
            variant="subtle"
            aria-label={t('prices.editRatio', { group: r.group })}
            onClick={() => form.setValues({ group: r.group, ratio: r.ratio })}
          >
            <IconPencil size={16} />
          </ActionIcon>
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={t('prices.deleteRatio', { group: r.group })}
            onClick={() => remove.mutate(r.group)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ),
    },
  ];
  return (
    <Stack>
      <form onSubmit={form.onSubmit((x) => save.mutate(x))} noValidate aria-label={t('prices.setRatio')}>
        <Group align="flex-end">
          <TextInput label={t('prices.group')} required {...form.getInputProps('group')} />
          <NumberInput label={t('prices.ratio')} min={0} decimalScale={4} required {...form.getInputProps('ratio')} />
          <Button type="submit" loading={save.isPending}>
            {t('prices.setRatio')}
          </Button>
        </Group>
      </form>
      {save.error && (
        <Alert color="red" role="alert">
          {save.error.message}
        </Alert>
      )}
      <DataTable
        label={t('prices.ratios')}
        columns={columns}
        rowKey={(r) => r.group}
        rows={q.data}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
    </Stack>
  );
}

export default function PricesPage() {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader title={t('nav.prices')} />
      <Tabs defaultValue="prices" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="prices">{t('prices.models')}</Tabs.Tab>
          <Tabs.Tab value="ratios">{t('prices.ratios')}</Tabs.Tab>
          <Tabs.Tab value="catalog">{t('prices.catalog')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="prices">
          <PriceList />
        </Tabs.Panel>
        <Tabs.Panel value="ratios">
          <RatioList />
        </Tabs.Panel>
        <Tabs.Panel value="catalog">
          <CatalogPanel />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
