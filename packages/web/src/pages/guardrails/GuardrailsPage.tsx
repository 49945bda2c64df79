/**
 * Guardrails (root; docs/guardrails.md): the installed guardrail plugins with this node's verdict
 * counts, installing one from its source, the bindings (the Guardrails option), and a check of a
 * sample text against an installed guardrail.
 */
import { Alert, Button, Card, Code, Group, SegmentedControl, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { DataTable, type Column } from '../../components/DataTable';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { useApiMutation } from '../../components/useApiMutation';

interface Guardrail {
  key: string;
  meta: Record<string, unknown>;
  active_version: string | null;
  runtime_status: string;
  runtime_error?: string;
}

function Installed({ onPick }: { onPick: (key: string) => void }) {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['guardrails'], queryFn: () => call(client.GET('/api/plugin/guardrail')) });
  const stats = useQuery({ queryKey: ['guardrail-stats'], queryFn: () => call(client.GET('/api/plugin/guardrail/stats')) });
  const counts = (key: string) =>
    Object.entries(stats.data?.[key] ?? {})
      .map(([action, n]) => `${action} ${n}`)
      .join(' · ') || '—';
  const columns: Column<Guardrail>[] = [
    {
      key: 'key',
      header: t('guardrails.key'),
      render: (g) => (
        <Stack gap={0}>
          <Text size="sm" fw={500}>
            {String(g.meta.name ?? g.key)}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {g.key}
          </Text>
        </Stack>
      ),
    },
    { key: 'version', header: t('guardrails.version'), render: (g) => g.active_version ?? '—' },
    { key: 'runtime', header: t('guardrails.runtime'), render: (g) => <StatusBadge status={g.runtime_status} reason={g.runtime_error} /> },
    { key: 'verdicts', header: t('guardrails.verdicts'), render: (g) => counts(g.key) },
  ];
  if (q.error) return <ErrorState error={q.error} onRetry={() => void q.refetch()} />;
  return (
    <DataTable
      label={t('guardrails.installed')}
      rows={(q.data ?? []) as Guardrail[]}
      columns={columns}
      rowKey={(g) => g.key}
      loading={q.isLoading}
      empty={t('guardrails.none')}
      onRowClick={(g) => onPick(g.key)}
    />
  );
}

function Install() {
  const { t } = useTranslation();
  const [source, setSource] = useState('');
  const install = useApiMutation(() => call(client.POST('/api/plugin/guardrail', { body: { source } })), {
    invalidate: ['guardrails'],
    success: t('guardrails.installedOk'),
    onSuccess: () => setSource(''),
  });
  return (
    <Card withBorder>
      <Stack>
        <Title order={4}>{t('guardrails.install')}</Title>
        <Textarea
          label={t('guardrails.source')}
          value={source}
          onChange={(e) => setSource(e.currentTarget.value)}
          autosize
          minRows={4}
          maxRows={16}
          styles={{ input: { fontFamily: 'monospace' } }}
        />
        {install.error && (
          <Alert color="red" role="alert">
            {install.error.message}
          </Alert>
        )}
        <Group>
          <Button onClick={() => install.mutate(undefined)} loading={install.isPending} disabled={!source.trim()}>
            {t('guardrails.installSubmit')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function Bindings() {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['options'], queryFn: () => call(client.GET('/api/option')) });
  const stored = q.data?.find((o) => o.key === 'Guardrails')?.value ?? '';
  // null: not edited yet, the stored bindings are shown.
  const [edited, setText] = useState<string | null>(null);
  const text = edited ?? (stored ? JSON.stringify(JSON.parse(stored), null, 2) : '');
  const save = useApiMutation(() => call(client.PUT('/api/option', { body: { options: { Guardrails: text.trim() } } })), {
    invalidate: ['options'],
    success: t('common.saved'),
    onSuccess: () => setText(null),
  });
  return (
    <Card withBorder>
      <Stack>
        <Title order={4}>{t('guardrails.bindings')}</Title>
        <Text size="sm" c="dimmed">
          {t('guardrails.bindingsHelp')}
        </Text>
        <Textarea
          label={t('guardrails.bindingsLabel')}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={3}
          maxRows={20}
          styles={{ input: { fontFamily: 'monospace' } }}
          placeholder='[{"plugin": "pii-mask", "stage": "both", "models": ["gpt-4o"], "on_error": "block"}]'
        />
        {save.error && (
          <Alert color="red" role="alert">
            {save.error.message}
          </Alert>
        )}
        <Group>
          <Button onClick={() => save.mutate(undefined)} loading={save.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function TryIt({ picked: key, onPick: setKey }: { picked: string | null; onPick: (key: string | null) => void }) {
  const { t } = useTranslation();
  const q = useQuery({ queryKey: ['guardrails'], queryFn: () => call(client.GET('/api/plugin/guardrail')) });
  const [stage, setStage] = useState<'input' | 'output'>('input');
  const [text, setText] = useState('');
  const run = useApiMutation(() =>
    call(client.POST('/api/plugin/guardrail/{key}/test', { params: { path: { key: key ?? '' } }, body: { stage, text } })),
  );
  const r = run.data;
  const verdict = r?.verdict as { action?: string; reason?: string; tags?: string[] } | null | undefined;
  return (
    <Card withBorder>
      <Stack>
        <Title order={4}>{t('guardrails.test')}</Title>
        <Group align="end">
          <Select
            label={t('guardrails.plugin')}
            data={(q.data ?? []).map((g) => g.key)}
            value={key}
            onChange={setKey}
            allowDeselect={false}
          />
          <SegmentedControl
            aria-label={t('guardrails.stage')}
            value={stage}
            onChange={(v) => setStage(v as 'input' | 'output')}
            data={[
              { value: 'input', label: t('guardrails.stageInput') },
              { value: 'output', label: t('guardrails.stageOutput') },
            ]}
          />
        </Group>
        <Textarea label={t('guardrails.sample')} value={text} onChange={(e) => setText(e.currentTarget.value)} autosize minRows={3} />
        <Group>
          <Button onClick={() => run.mutate(undefined)} loading={run.isPending} disabled={!key || !text}>
            {t('guardrails.run')}
          </Button>
        </Group>
        {run.error && (
          <Alert color="red" role="alert">
            {run.error.message}
          </Alert>
        )}
        {r && (
          <section aria-label={t('guardrails.result')}>
            <Stack gap="xs">
              {verdict ? (
                <Text>
                  {t('guardrails.verdict')}: <Code>{verdict.action}</Code>
                  {verdict.reason ? ` — ${verdict.reason}` : ''}
                  {verdict.tags ? ` — ${verdict.tags.join(', ')}` : ''}
                </Text>
              ) : (
                <Text c="red">
                  {t('guardrails.failed')}: {r.error}
                </Text>
              )}
              {r.texts.map((s, i) => (
                <Code key={i} block>
                  {s}
                </Code>
              ))}
            </Stack>
          </section>
        )}
      </Stack>
    </Card>
  );
}

export default function GuardrailsPage() {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<string | null>(null);
  return (
    <Stack>
      <PageHeader title={t('nav.guardrails')} />
      <Installed onPick={setPicked} />
      <TryIt picked={picked} onPick={setPicked} />
      <Install />
      <Bindings />
    </Stack>
  );
}
