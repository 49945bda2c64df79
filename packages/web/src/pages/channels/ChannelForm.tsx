/**
 * Create or edit a channel: the common fields, then the settings of the chosen type; under the base URL, where a
 * chat call will go, as the gateway resolves it (POST /api/channel/upstream-url: the relay's own rule). The
 * rules of each type's settings are the gateway's (each provider checks its own): a refusal is shown beside
 * the input of the field it names.
 */
import { Code, NumberInput, Select, SimpleGrid, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client, type Schemas } from '../../api/client';
import { JsonField, ListField, parseJsonObject, stringifyJson, validators } from '../../components/fields';
import { FormModal } from '../../components/FormModal';
import { useApiMutation } from '../../components/useApiMutation';
import { CHANNEL_TYPES, type Channel } from './types';

const PRESETS = [
  '',
  'openai',
  'deepseek',
  'moonshot',
  'qwen',
  'zhipu',
  'volcengine',
  'qianfan',
  'siliconflow',
  'xai',
  'mistral',
  'groq',
  'together',
  'fireworks',
  'openrouter',
  'perplexity',
  'cloudflare',
  'ollama',
  'vllm',
  'lmstudio',
];

interface Values {
  name: string;
  type: string;
  base_url: string;
  keys: string;
  key_mode: string;
  models: string[];
  groups: string[];
  priority: number | string;
  weight: number | string;
  cost_ratio: number | string;
  max_concurrency: number | string;
  max_input_tokens: number | string;
  model_mapping: string;
  header_override: string;
  param_override: string;
  status: string;
  test_model: string;
  tag: string;
  preset: string;
  account_id: string;
  api_version: string;
  region: string;
  prompt_cache: string;
  prompt_cache_ttl: string;
  plugin: string;
  plugins: string[];
}

function initial(c: Channel | null): Values {
  const s = (c?.settings ?? {}) as Record<string, unknown>;
  return {
    name: c?.name ?? '',
    type: c?.type_name ?? 'openai',
    base_url: c?.base_url ?? '',
    keys: '',
    key_mode: c?.key_mode ?? 'random',
    models: c?.models ?? [],
    groups: c?.groups ?? ['default'],
    priority: c?.priority ?? 0,
    weight: c?.weight ?? 1,
    cost_ratio: c?.cost_ratio ?? 1,
    max_concurrency: c?.max_concurrency ?? 0,
    max_input_tokens: c?.max_input_tokens ?? 0,
    model_mapping: stringifyJson(c?.model_mapping),
    header_override: stringifyJson(c?.header_override),
    param_override: stringifyJson(c?.param_override),
    status: c?.status ?? 'enabled',
    test_model: c?.test_model ?? '',
    tag: c?.tag ?? '',
    preset: typeof s.preset === 'string' ? s.preset : '',
    account_id: typeof s.account_id === 'string' ? s.account_id : '',
    api_version: typeof s.api_version === 'string' ? s.api_version : '',
    region: typeof s.region === 'string' ? s.region : '',
    prompt_cache: s.prompt_cache === 'off' ? 'off' : 'auto',
    prompt_cache_ttl: s.prompt_cache_ttl === '1h' ? '1h' : '5m',
    plugin: typeof s.plugin === 'string' ? s.plugin : '',
    plugins: Array.isArray(s.plugins) ? (s.plugins as string[]) : [],
  };
}

/** The settings this form edits, by type; a type's other settings are kept as they are. */
const FORM_SETTINGS = ['preset', 'account_id', 'api_version', 'region', 'prompt_cache', 'prompt_cache_ttl', 'plugin', 'plugins'];

/**
 * The input that shows the gateway's refusal of a channel field: a setting's own input (`settings.region`
 * → `region`), the whole list for one of its entries (`keys[1]` → `keys`), else the field as named.
 */
function inputOf(field: string): string {
  const f = field.replace(/\[\d+\].*$/, '');
  const setting = /^settings\.(\w+)$/.exec(f)?.[1];
  return setting && FORM_SETTINGS.includes(setting) ? setting : f;
}

/** Channel types that serve Claude models, whose converted calls get prompt-cache breakpoints. */
const CLAUDE_TYPES = new Set(['anthropic', 'vertex', 'bedrock']);

/**
 * The settings to save: on an edit that keeps the type, every setting the form does not show (a Vertex
 * channel's `project_id`, `responses_api`, settings set through the API or the configuration file) is
 * kept; the ones it shows are taken from the form.
 */
function settingsOf(v: Values, channel: Channel | null): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (channel && channel.type_name === v.type) {
    for (const [k, x] of Object.entries((channel.settings ?? {}) as Record<string, unknown>)) if (!FORM_SETTINGS.includes(k)) kept[k] = x;
  }
  return { ...kept, ...formSettings(v), ...(CLAUDE_TYPES.has(v.type) ? cacheSettings(v) : {}) };
}

/** The prompt-cache settings that differ from the defaults (`auto`, `5m`). */
function cacheSettings(v: Values): Record<string, unknown> {
  return {
    ...(v.prompt_cache === 'off' ? { prompt_cache: 'off' } : {}),
    ...(v.prompt_cache_ttl === '1h' ? { prompt_cache_ttl: '1h' } : {}),
  };
}

function formSettings(v: Values): Record<string, unknown> {
  switch (v.type) {
    case 'openai':
      return v.preset ? { preset: v.preset, ...(v.preset === 'cloudflare' && v.account_id ? { account_id: v.account_id } : {}) } : {};
    case 'azure':
      return v.api_version ? { api_version: v.api_version } : {};
    case 'vertex':
    case 'bedrock':
      return v.region.trim() ? { region: v.region.trim() } : {};
    case 'task_plugin':
      return { plugin: v.plugin };
    case 'gateway':
      return { plugins: v.plugins };
    default:
      return {};
  }
}

/** Where a chat call to the channel's first model goes with the form's type, base URL and settings. */
function ResolvedUrl({ v, channel }: { v: Values; channel: Channel | null }) {
  const { t } = useTranslation();
  const [req] = useDebouncedValue(
    JSON.stringify({ type: v.type, base_url: v.base_url.trim(), settings: settingsOf(v, channel), model: v.models[0] ?? '' }),
    300,
  );
  const url = useQuery({
    queryKey: ['upstream-url', req],
    queryFn: () =>
      call(
        client.POST('/api/channel/upstream-url', {
          body: JSON.parse(req) as { type: string; base_url: string; settings: Record<string, unknown>; model: string },
        }),
      ),
    placeholderData: keepPreviousData,
    enabled: !/^(task_plugin|gateway)$/.test(v.type) && (!v.base_url.trim() || /^https?:\/\/\S+$/i.test(v.base_url.trim())),
  });
  if (!url.data?.url) return null;
  return (
    <Text size="xs" c="dimmed" mt={-8} aria-live="polite" data-testid="resolved-url">
      {t('channels.resolvedUrl')} <Code>{url.data.url}</Code>
    </Text>
  );
}

export function ChannelForm({ channel, onClose }: { channel: Channel | null; onClose: () => void }) {
  const { t } = useTranslation();
  const v = validators(t);
  const form = useForm<Values>({
    initialValues: initial(channel),
    validate: {
      name: v.required,
      base_url: (x) => v.url(x),
      groups: v.required,
      priority: (x) => (Number.isInteger(Number(x)) ? null : t('validation.number')),
      weight: (x) => v.nonNegative(x),
      cost_ratio: (x) => v.nonNegative(x),
      max_concurrency: (x) => v.nonNegative(x),
      max_input_tokens: (x) => v.nonNegative(x),
      model_mapping: v.jsonObject,
      header_override: v.jsonObject,
      param_override: v.jsonObject,
    },
  });
  const save = useApiMutation(
    async (x: Values) => {
      const body: Schemas['ChannelInput'] = {
        name: x.name.trim(),
        type: x.type,
        base_url: x.base_url.trim(),
        key_mode: x.key_mode,
        models: x.models,
        groups: x.groups,
        priority: Number(x.priority),
        weight: Number(x.weight),
        cost_ratio: x.cost_ratio === '' ? 1 : Number(x.cost_ratio),
        max_concurrency: Number(x.max_concurrency) || 0,
        max_input_tokens: Number(x.max_input_tokens) || 0,
        model_mapping: parseJsonObject(x.model_mapping),
        header_override: parseJsonObject(x.header_override),
        param_override: parseJsonObject(x.param_override),
        status: x.status,
        test_model: x.test_model.trim() || null,
        tag: x.tag.trim() || null,
        settings: settingsOf(x, channel),
        ...(x.keys.trim()
          ? {
              keys: x.keys
                .split('\n')
                .map((k) => k.trim())
                .filter(Boolean),
            }
          : {}),
      };
      return channel
        ? call(client.PUT('/api/channel/{id}', { params: { path: { id: channel.id } }, body }))
        : call(client.POST('/api/channel', { body }));
    },
    { invalidate: ['channels', 'channel'], success: t('common.saved'), onSuccess: onClose },
  );
  const type = form.values.type;

  return (
    <FormModal
      form={form}
      fieldPath={inputOf}
      opened
      onClose={onClose}
      title={channel ? t('channels.editTitle', { name: channel.name }) : t('channels.create')}
      onSubmit={form.onSubmit((x) => save.mutate(x))}
      error={save.error}
      pending={save.isPending}
      size="xl"
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('channels.name')} required {...form.getInputProps('name')} />
        <Select
          label={t('channels.type')}
          required
          allowDeselect={false}
          data={CHANNEL_TYPES.map((x) => ({ value: x, label: t(`channels.types.${x}`) }))}
          {...form.getInputProps('type')}
        />
      </SimpleGrid>
      <TextInput
        label={t('channels.baseUrl')}
        description={t(type === 'openai' ? 'channels.baseUrlHintOpenai' : 'channels.baseUrlHint')}
        placeholder="https://"
        {...form.getInputProps('base_url')}
      />
      <ResolvedUrl v={form.values} channel={channel} />
      {type === 'openai' && (
        <Select
          label={t('channels.preset')}
          data={PRESETS.map((p) => ({ value: p, label: p || t('channels.noPreset') }))}
          {...form.getInputProps('preset')}
        />
      )}
      {type === 'openai' && form.values.preset === 'cloudflare' && (
        <TextInput label={t('channels.accountId')} {...form.getInputProps('account_id')} />
      )}
      {type === 'azure' && <TextInput label={t('channels.apiVersion')} placeholder="2024-10-21" {...form.getInputProps('api_version')} />}
      {(type === 'bedrock' || type === 'vertex') && (
        <TextInput
          label={t('channels.region')}
          description={t(type === 'vertex' ? 'channels.vertexRegionHint' : 'channels.bedrockRegionHint')}
          placeholder={type === 'vertex' ? 'global' : 'us-east-1'}
          {...form.getInputProps('region')}
        />
      )}
      {CLAUDE_TYPES.has(type) && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('channels.promptCache')}
            description={t('channels.promptCacheHint')}
            allowDeselect={false}
            data={[
              { value: 'auto', label: t('channels.promptCacheAuto') },
              { value: 'off', label: t('channels.promptCacheOff') },
            ]}
            {...form.getInputProps('prompt_cache')}
          />
          <Select
            label={t('channels.promptCacheTtl')}
            description={t('channels.promptCacheTtlHint')}
            allowDeselect={false}
            disabled={form.values.prompt_cache === 'off'}
            data={[
              { value: '5m', label: t('channels.ttl5m') },
              { value: '1h', label: t('channels.ttl1h') },
            ]}
            {...form.getInputProps('prompt_cache_ttl')}
          />
        </SimpleGrid>
      )}
      {type === 'task_plugin' && <TextInput label={t('channels.plugin')} {...form.getInputProps('plugin')} />}
      {type === 'gateway' && <ListField label={t('channels.plugins')} {...form.getInputProps('plugins')} />}
      <Textarea
        label={t('channels.keys')}
        description={
          channel
            ? t('channels.keysKeep', { count: channel.key_count })
            : t(type === 'bedrock' ? 'channels.bedrockKeysHint' : 'channels.keysHint')
        }
        autosize
        minRows={2}
        maxRows={8}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        autoComplete="off"
        {...form.getInputProps('keys')}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Select
          label={t('channels.keyMode')}
          allowDeselect={false}
          data={[
            { value: 'random', label: t('channels.random') },
            { value: 'round_robin', label: t('channels.roundRobin') },
          ]}
          {...form.getInputProps('key_mode')}
        />
        <NumberInput
          label={t('channels.priority')}
          description={t('channels.priorityHint')}
          allowDecimal={false}
          {...form.getInputProps('priority')}
        />
        <NumberInput
          label={t('channels.weight')}
          description={t('channels.weightHint')}
          allowDecimal={false}
          min={0}
          {...form.getInputProps('weight')}
        />
        <NumberInput
          label={t('channels.costRatio')}
          description={t('channels.costRatioHint')}
          min={0}
          decimalScale={4}
          {...form.getInputProps('cost_ratio')}
        />
        <NumberInput
          label={t('channels.maxConcurrency')}
          description={t('channels.maxConcurrencyHint')}
          allowDecimal={false}
          min={0}
          {...form.getInputProps('max_concurrency')}
        />
        <NumberInput
          label={t('channels.maxInputTokens')}
          description={t('channels.maxInputTokensHint')}
          allowDecimal={false}
          min={0}
          {...form.getInputProps('max_input_tokens')}
        />
      </SimpleGrid>
      <ListField label={t('channels.models')} description={t('channels.listHint')} {...form.getInputProps('models')} />
      <ListField label={t('channels.groups')} description={t('channels.listHint')} required {...form.getInputProps('groups')} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Select
          label={t('channels.status')}
          allowDeselect={false}
          data={['enabled', 'disabled', 'auto_disabled'].map((x) => ({ value: x, label: t(`status.${x}` as 'status.enabled') }))}
          {...form.getInputProps('status')}
        />
        <TextInput label={t('channels.testModel')} {...form.getInputProps('test_model')} />
        <TextInput label={t('channels.tag')} description={t('channels.tagHint')} maxLength={64} {...form.getInputProps('tag')} />
      </SimpleGrid>
      <JsonField
        label={t('channels.modelMapping')}
        description={t('channels.modelMappingHint')}
        placeholder='{"gpt-4o": "my-deployment"}'
        {...form.getInputProps('model_mapping')}
      />
      <JsonField label={t('channels.headerOverride')} placeholder='{"x-header": "value"}' {...form.getInputProps('header_override')} />
      <JsonField label={t('channels.paramOverride')} placeholder='{"temperature": 0.2}' {...form.getInputProps('param_override')} />
    </FormModal>
  );
}
