/**
 * Plans (admins): the plans with their usage windows, price, duration, models and overflow rule;
 * create and edit them, enable or disable, delete one nobody holds, and see a plan's subscribers.
 */
import { ActionIcon, Badge, Button, Group, Modal, NumberInput, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash, IconUsers } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { FormModal } from '../../components/FormModal';
import { PageHeader } from '../../components/PageHeader';
import { useApiMutation } from '../../components/useApiMutation';
import { fmtTime, fmtUsd } from '../../lib/format';

type Plan = Schemas['Plan'];
type WindowRow = { every: string; quota_usd: number | string };
type Values = {
  name: string;
  price_usd: number | string;
  duration_days: number | string;
  windows: WindowRow[];
  models: string;
  overflow: string;
  enabled: boolean;
};

function PlanForm({ plan, onClose }: { plan: Plan | null; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<Values>({
    initialValues: plan
      ? {
          name: plan.name,
          price_usd: plan.price_usd,
          duration_days: plan.duration_days,
          windows: plan.windows.map((w) => ({ every: w.every, quota_usd: w.quota_usd })),
          models: (plan.models ?? []).join(', '),
          overflow: plan.overflow,
          enabled: plan.enabled,
        }
      : {
          name: '',
          price_usd: 10,
          duration_days: 30,
          windows: [{ every: '5h', quota_usd: 1 }],
          models: '',
          overflow: 'refuse',
          enabled: true,
        },
    validate: { name: (x) => (x.trim() ? null : t('validation.required')) },
  });
  const save = useApiMutation(
    (x: Values) => {
      const body = {
        name: x.name.trim(),
        price_usd: Number(x.price_usd),
        duration_days: Number(x.duration_days),
        windows: x.windows.map((w) => ({ every: w.every.trim(), quota_usd: Number(w.quota_usd) })),
        models: x.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean),
        overflow: x.overflow as 'refuse' | 'balance',
        enabled: x.enabled,
      };
      return plan
        ? call(client.PUT('/api/plan/{id}', { params: { path: { id: plan.id } }, body }))
        : call(client.POST('/api/plan', { body }));
    },
    { invalidate: ['plans'], onSuccess: () => onClose() },
  );
  return (
    <FormModal
      form={form}
      opened
      onClose={onClose}
      title={plan ? t('plans.editTitle') : t('plans.createTitle')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      submitLabel={plan ? t('common.save') : t('common.create')}
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput label={t('plans.name')} required maxLength={64} {...form.getInputProps('name')} />
        <NumberInput label={t('plans.price')} prefix="$" min={0} decimalScale={6} required {...form.getInputProps('price_usd')} />
        <NumberInput label={t('plans.duration')} min={1} max={3660} required {...form.getInputProps('duration_days')} />
      </SimpleGrid>
      <Stack gap="xs">
        <Text size="sm" fw={500}>
          {t('plans.windows')}
        </Text>
        {form.values.windows.map((_w, i) => (
          <Group key={i} align="flex-end" wrap="nowrap">
            <TextInput
              label={t('plans.every')}
              description={i === 0 ? t('plans.everyHint') : undefined}
              {...form.getInputProps(`windows.${i}.every`)}
            />
            <NumberInput
              label={t('plans.windowQuota')}
              prefix="$"
              min={0}
              decimalScale={6}
              {...form.getInputProps(`windows.${i}.quota_usd`)}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('plans.removeWindow')}
              disabled={form.values.windows.length <= 1}
              onClick={() => form.removeListItem('windows', i)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => form.insertListItem('windows', { every: '7d', quota_usd: 10 })}
          >
            {t('plans.addWindow')}
          </Button>
        </Group>
      </Stack>
      <TextInput label={t('plans.models')} description={t('plans.modelsHint')} {...form.getInputProps('models')} />
      <Select
        label={t('plans.overflow')}
        data={[
          { value: 'refuse', label: t('plans.overflowRefuse') },
          { value: 'balance', label: t('plans.overflowBalance') },
        ]}
        allowDeselect={false}
        {...form.getInputProps('overflow')}
      />
      <Switch label={t('common.enabled')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </FormModal>
  );
}

function Subscribers({ plan, onClose }: { plan: Plan; onClose: () => void }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ['plans', 'subscribers', plan.id],
    queryFn: () => call(client.GET('/api/plan/{id}/subscribers', { params: { path: { id: plan.id } } })),
  });
  const columns: Column<Schemas['PlanSubscriber']>[] = [
    { key: 'user', header: t('plans.user'), render: (s) => s.username },
    { key: 'started', header: t('plans.started'), render: (s) => fmtTime(s.started_at) },
    { key: 'expires', header: t('plans.expires'), render: (s) => fmtTime(s.expires_at) },
    { key: 'stripe', header: t('plans.stripe'), render: (s) => s.stripe_subscription ?? '—' },
  ];
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('plans.subscribersOf', { name: plan.name })}
      size="xl"
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <DataTable
        label={t('plans.subscribers')}
        columns={columns}
        rows={q.data}
        rowKey={(s) => s.user_id}
        loading={q.isLoading}
        error={q.error}
      />
    </Modal>
  );
}

export default function PlansPage() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['plans'], queryFn: () => call(client.GET('/api/plan')) });
  const [editing, setEditing] = useState<Plan | 'new' | null>(null);
  const [viewing, setViewing] = useState<Plan | null>(null);
  const remove = useApiMutation((id: number) => call(client.DELETE('/api/plan/{id}', { params: { path: { id } } })), {
    invalidate: ['plans'],
    notifyError: true,
    success: t('plans.deleted'),
  });
  const columns: Column<Plan>[] = [
    { key: 'name', header: t('plans.name'), render: (p) => <Text fw={500}>{p.name}</Text> },
    { key: 'price', header: t('plans.price'), numeric: true, render: (p) => fmtUsd(p.price_usd) },
    { key: 'duration', header: t('plans.duration'), numeric: true, render: (p) => p.duration_days },
    {
      key: 'windows',
      header: t('plans.windows'),
      render: (p) => p.windows.map((w) => `${fmtUsd(w.quota_usd)} / ${w.every}`).join(', '),
    },
    { key: 'models', header: t('plans.models'), render: (p) => (p.models ? p.models.join(', ') : t('plans.allModels')) },
    {
      key: 'overflow',
      header: t('plans.overflow'),
      render: (p) => (p.overflow === 'refuse' ? t('plans.overflowRefuse') : t('plans.overflowBalance')),
    },
    { key: 'subscribers', header: t('plans.subscribers'), numeric: true, render: (p) => p.subscribers ?? 0 },
    {
      key: 'status',
      header: t('common.enabled'),
      render: (p) => (
        <Badge variant="dot" color={p.enabled ? 'green' : 'gray'}>
          {p.enabled ? t('common.enabled') : t('common.disabled')}
        </Badge>
      ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (p) => (
        <Group gap={4} wrap="nowrap">
          <Button size="xs" variant="default" onClick={() => setEditing(p)}>
            {t('common.edit')}
          </Button>
          <ActionIcon variant="subtle" aria-label={t('plans.subscribersOf', { name: p.name })} onClick={() => setViewing(p)}>
            <IconUsers size={16} />
          </ActionIcon>
          <ActionIcon variant="subtle" color="red" aria-label={t('plans.deleteOf', { name: p.name })} onClick={() => remove.mutate(p.id)}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('nav.plans')}>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
          {t('plans.createTitle')}
        </Button>
      </PageHeader>
      <DataTable
        label={t('nav.plans')}
        columns={columns}
        rows={q.data}
        rowKey={(p) => p.id}
        loading={q.isLoading}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
      {editing && <PlanForm plan={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      {viewing && <Subscribers plan={viewing} onClose={() => setViewing(null)} />}
    </>
  );
}
