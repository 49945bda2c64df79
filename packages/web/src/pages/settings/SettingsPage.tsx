/**
 * Settings (root): every run-time option with its description (in the console's language) and an input of its
 * type — a switch for on/off, a number with its unit (seconds, minutes, hours; money in USD), JSON, lists, a
 * model picker —; changed values are saved together.
 */
import {
  ActionIcon,
  Alert,
  Autocomplete,
  Badge,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowBackUp } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { quotaPerUsd, useSelf } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { JsonField } from '../../components/fields';
import { PageHeader } from '../../components/PageHeader';
import { ModelPicker } from '../../components/pickers';
import { useApiMutation } from '../../components/useApiMutation';
import zhDocs from '../../i18n/options.zh-CN.json';

type Option = Schemas['Option'];

/** The option descriptions in Chinese, each with the English text it translates (English: the gateway's own). */
const DOCS: Record<string, Record<string, { en: string; zh: string }>> = { 'zh-CN': zhDocs };

/** Currencies Stripe takes most often, offered for TopupCurrency (any other ISO code can be typed). */
const CURRENCIES = ['usd', 'eur', 'gbp', 'cny', 'hkd', 'jpy', 'sgd', 'aud', 'cad', 'chf', 'inr', 'krw', 'brl', 'mxn'];

const SECRET_SET = '[set]';
const isOn = (v: string) => /^(1|true|yes|on)$/i.test(v.trim());

/** One option's input, by its type. `value` and `onChange` carry the option's text, as the API stores it. */
function OptionInput({ o, value, onChange, perUsd }: { o: Option; value: string; onChange: (v: string) => void; perUsd: number }) {
  const { t } = useTranslation();
  const common = { 'aria-label': o.key, size: 'xs' as const, miw: 240 };
  switch (o.type) {
    case 'bool':
      return (
        <Switch
          aria-label={o.key}
          checked={isOn(value)}
          onChange={(e) => onChange(e.currentTarget.checked ? 'true' : 'false')}
          label={isOn(value) ? t('settings.on') : t('settings.off')}
        />
      );
    case 'int':
    case 'number': {
      if (o.unit === 'quota') {
        return (
          <NumberInput
            {...common}
            prefix="$"
            min={0}
            decimalScale={6}
            value={value === '' ? '' : Number(value) / perUsd}
            onChange={(v) => onChange(v === '' ? '' : String(Math.round(Number(v) * perUsd)))}
          />
        );
      }
      return (
        <NumberInput
          {...common}
          allowDecimal={o.type === 'number'}
          value={value === '' ? '' : Number(value)}
          onChange={(v) => onChange(v === '' ? '' : String(v))}
          rightSection={
            o.unit ? (
              <Text size="xs" c="dimmed">
                {t(`settings.units.${o.unit}`)}
              </Text>
            ) : undefined
          }
          rightSectionWidth={o.unit ? 44 : undefined}
        />
      );
    }
    case 'secret':
      // A stored secret is never sent back: empty with a note; typing replaces it, Reset removes it.
      return (
        <PasswordInput
          {...common}
          value={value === SECRET_SET ? '' : value}
          placeholder={value === SECRET_SET ? t('settings.secretSet') : undefined}
          onChange={(e) => onChange(e.currentTarget.value || (o.value === SECRET_SET ? SECRET_SET : ''))}
          autoComplete="new-password"
        />
      );
    case 'text_list':
      return <Textarea {...common} autosize minRows={2} maxRows={8} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'group_counts':
    case 'model_limits':
    case 'group_model_limits':
    case 'routing':
    case 'model_fallbacks':
      return <JsonField {...common} minRows={2} value={value} onChange={onChange} />;
    case 'url':
      return <TextInput {...common} type="url" placeholder="https://" value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
    default:
      if (o.key === 'DefaultModerationModel') return <ModelPicker {...common} value={value} onChange={onChange} />;
      if (o.key === 'TopupCurrency') return <Autocomplete {...common} data={CURRENCIES} value={value} onChange={onChange} />;
      return <TextInput {...common} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}

export default function SettingsPage() {
  const { t, i18n } = useTranslation();
  const perUsd = quotaPerUsd(useSelf().data);
  const q = useQuery({ queryKey: ['options'], queryFn: () => call(client.GET('/api/option')) });
  const form = useForm<Record<string, string>>({ initialValues: {} });
  const [filter, setFilter] = useState('');
  const { setInitialValues, setValues } = form;
  useEffect(() => {
    if (!q.data) return;
    const v = Object.fromEntries(q.data.map((o) => [o.key, o.value]));
    setInitialValues(v);
    setValues(v);
  }, [q.data, setInitialValues, setValues]);
  const docOf = (o: Option) => DOCS[i18n.language]?.[o.key]?.zh ?? o.doc;
  const changed = Object.entries(form.values).filter(([k, v]) => q.data?.find((o) => o.key === k)?.value !== v);
  const save = useApiMutation(() => call(client.PUT('/api/option', { body: { options: Object.fromEntries(changed) } })), {
    invalidate: ['options'],
    success: t('common.saved'),
  });
  const reset = useApiMutation((key: string) => call(client.DELETE('/api/option/{key}', { params: { path: { key } } })), {
    invalidate: ['options'],
    notifyError: true,
    success: t('settings.resetDone'),
  });
  const needle = filter.toLowerCase();
  const rows = q.data?.filter((o) => !filter || o.key.toLowerCase().includes(needle) || docOf(o).toLowerCase().includes(needle));
  const columns: Column<Option>[] = [
    {
      key: 'key',
      header: t('settings.option'),
      render: (o) => (
        <Stack gap={2} maw={420}>
          <Text size="sm" ff="monospace" fw={500}>
            {o.key}
          </Text>
          <Text size="xs" c="dimmed" data-doc>
            {docOf(o)}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'value',
      header: t('settings.value'),
      render: (o) => (
        <OptionInput o={o} value={form.values[o.key] ?? o.value} onChange={(v) => form.setFieldValue(o.key, v)} perUsd={perUsd} />
      ),
    },
    {
      key: 'default',
      header: t('settings.source'),
      render: (o) =>
        o.default ? (
          <Badge variant="light" color="gray">
            {t('settings.default')}
          </Badge>
        ) : (
          <Badge variant="light">{t('settings.stored')}</Badge>
        ),
    },
    {
      key: 'actions',
      header: t('common.actions'),
      render: (o) => (
        <Tooltip label={t('settings.reset')}>
          <ActionIcon
            variant="subtle"
            disabled={o.default}
            aria-label={t('settings.resetNamed', { key: o.key })}
            onClick={() => reset.mutate(o.key)}
          >
            <IconArrowBackUp size={16} />
          </ActionIcon>
        </Tooltip>
      ),
    },
  ];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (changed.length) save.mutate(undefined);
      }}
      aria-label={t('nav.settings')}
    >
      <PageHeader title={t('nav.settings')}>
        <Text size="sm" c="dimmed">
          {t('settings.changed', { count: changed.length })}
        </Text>
        <Button variant="default" disabled={!changed.length} onClick={() => form.reset()}>
          {t('settings.discard')}
        </Button>
        <Button type="submit" disabled={!changed.length} loading={save.isPending}>
          {t('settings.save')}
        </Button>
      </PageHeader>
      {save.error && (
        <Alert color="red" role="alert" mb="md" title={t('error.refused')}>
          {save.error.message}
        </Alert>
      )}
      <Group mb="md">
        <TextInput label={t('settings.search')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} w={300} />
      </Group>
      <DataTable
        label={t('nav.settings')}
        columns={columns}
        rowKey={(o) => o.key}
        rows={rows}
        loading={q.isFetching}
        error={q.error}
        onRetry={() => void q.refetch()}
      />
    </form>
  );
}
