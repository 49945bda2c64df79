/**
 * Playground: chat with a model the user's group may use, streamed, billed to the user. System prompt,
 * temperature and max tokens; Stop aborts the call.
 */
import {
  Alert,
  Anchor,
  Box,
  Button,
  Card,
  Grid,
  Group,
  NumberInput,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Text,
  Textarea,
} from '@mantine/core';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { ErrorState } from '../../components/ErrorState';
import { PageHeader } from '../../components/PageHeader';
import { fmtInt } from '../../lib/format';
import { isRoot, useSelf, type SelfUser } from '../../app/session';
import { ChatError, streamChat, type ChatMessage, type StreamUsage } from './stream';

/**
 * What to do about a balance too low for a call: root tops itself up on the Users page (a link that opens its
 * top-up); an admin's balance is root's to change; a user redeems a code or pays in the wallet.
 */
function LowBalance({ user }: { user: SelfUser | undefined }) {
  const { t } = useTranslation();
  if (isRoot(user)) {
    return (
      <Text size="sm" mt={4}>
        {t('playground.lowBalanceRoot')}{' '}
        <Anchor component={Link} to={`/users?topup=${user!.id}`}>
          {t('playground.topUpSelf')}
        </Anchor>
      </Text>
    );
  }
  return (
    <Text size="sm" mt={4}>
      {t(user?.role === 'admin' ? 'playground.lowBalanceAdmin' : 'playground.lowBalanceUser')}{' '}
      <Anchor component={Link} to="/wallet">
        {t('playground.toWallet')}
      </Anchor>
    </Text>
  );
}

export default function PlaygroundPage() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const models = useQuery({ queryKey: ['user-models'], queryFn: () => call(client.GET('/api/user/models')) });
  const [model, setModel] = useState<string | null>(null);
  const [system, setSystem] = useState('');
  const [temperature, setTemperature] = useState<number | string>(0.7);
  const [maxTokens, setMaxTokens] = useState<number | string>('');
  const [input, setInput] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<{ message: string; code: string | null } | null>(null);
  const self = useSelf();
  const [usage, setUsage] = useState<StreamUsage | null>(null);
  const abort = useRef<AbortController | null>(null);
  const chosen = model ?? models.data?.items[0]?.model ?? null;

  const send = async () => {
    if (!chosen) {
      setInputError(t('playground.pickModel'));
      return;
    }
    if (!input.trim()) {
      setInputError(t('playground.emptyMessage'));
      return;
    }
    setInputError(null);
    setError(null);
    setUsage(null);
    const history: ChatMessage[] = [...messages, { role: 'user', content: input }];
    setMessages([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setStreaming(true);
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      const u = await streamChat(
        {
          model: chosen,
          messages: [...(system.trim() ? [{ role: 'system' as const, content: system }] : []), ...history],
          ...(temperature !== '' ? { temperature: Number(temperature) } : {}),
          ...(maxTokens !== '' ? { max_tokens: Number(maxTokens) } : {}),
        },
        (delta) => setMessages((m) => [...m.slice(0, -1), { role: 'assistant', content: m[m.length - 1].content + delta }]),
        ctl.signal,
      );
      setUsage(u);
    } catch (e) {
      if ((e as Error).name !== 'AbortError') {
        setError({ message: (e as Error).message, code: e instanceof ChatError ? (e.code ?? null) : null });
        setMessages((m) => (m[m.length - 1]?.content === '' ? m.slice(0, -1) : m));
      }
    } finally {
      setStreaming(false);
      abort.current = null;
      void qc.invalidateQueries({ queryKey: ['self'] });
    }
  };

  return (
    <>
      <PageHeader title={t('nav.playground')}>
        <Button
          variant="default"
          onClick={() => {
            setMessages([]);
            setUsage(null);
            setError(null);
          }}
          disabled={streaming}
        >
          {t('playground.clear')}
        </Button>
      </PageHeader>
      {models.error && <ErrorState error={models.error} onRetry={() => void models.refetch()} />}
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Card withBorder component="section" aria-label={t('playground.settings')}>
            <Stack>
              <Select
                label={t('playground.model')}
                searchable
                allowDeselect={false}
                value={chosen}
                onChange={setModel}
                data={models.data?.items.map((m) => m.model) ?? []}
                nothingFoundMessage={t('playground.noModels')}
                error={!chosen && inputError ? inputError : undefined}
              />
              <Textarea
                label={t('playground.system')}
                autosize
                minRows={3}
                maxRows={10}
                value={system}
                onChange={(e) => setSystem(e.currentTarget.value)}
              />
              <NumberInput
                label={t('playground.temperature')}
                min={0}
                max={2}
                step={0.1}
                decimalScale={2}
                value={temperature}
                onChange={setTemperature}
              />
              <NumberInput
                label={t('playground.maxTokens')}
                description={t('playground.maxTokensHint')}
                min={1}
                allowDecimal={false}
                value={maxTokens}
                onChange={setMaxTokens}
              />
            </Stack>
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Card withBorder component="section" aria-label={t('playground.conversation')}>
            <ScrollArea h={420} type="auto">
              <Stack gap="sm" role="log" aria-live="polite" aria-label={t('playground.conversation')}>
                {messages.length === 0 && (
                  <Text c="dimmed" ta="center" mt="xl">
                    {t('playground.start')}
                  </Text>
                )}
                {messages.map((m, i) => (
                  <Paper
                    key={i}
                    p="sm"
                    radius="md"
                    withBorder
                    bg={m.role === 'user' ? 'var(--mantine-color-blue-light)' : undefined}
                    ml={m.role === 'user' ? 'xl' : 0}
                    mr={m.role === 'user' ? 0 : 'xl'}
                    data-role={m.role}
                  >
                    <Text size="xs" c="dimmed" fw={700}>
                      {t(`playground.role.${m.role}`)}
                    </Text>
                    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                      {m.content || (streaming && i === messages.length - 1 ? '…' : '')}
                    </Text>
                  </Paper>
                ))}
              </Stack>
            </ScrollArea>
            {error && (
              <Alert color="red" role="alert" mt="sm" title={t('playground.failed')}>
                {error.message}
                {error.code === 'insufficient_quota' && <LowBalance user={self.data} />}
              </Alert>
            )}
            {usage && (
              <Text size="xs" c="dimmed" mt="xs">
                {t('playground.usage', { prompt: fmtInt(usage.prompt_tokens), completion: fmtInt(usage.completion_tokens) })}
              </Text>
            )}
            <Box
              component="form"
              mt="sm"
              onSubmit={(e) => {
                e.preventDefault();
                void send();
              }}
              aria-label={t('playground.compose')}
            >
              <Textarea
                label={t('playground.message')}
                autosize
                minRows={2}
                maxRows={8}
                value={input}
                error={chosen ? inputError : undefined}
                onChange={(e) => setInput(e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                    e.preventDefault();
                    void send();
                  }
                }}
              />
              <Group justify="space-between" mt="xs">
                <Text size="xs" c="dimmed">
                  {t('playground.sendHint')}
                </Text>
                {streaming ? (
                  <Button color="red" variant="light" onClick={() => abort.current?.abort()}>
                    {t('playground.stop')}
                  </Button>
                ) : (
                  <Button type="submit">{t('playground.send')}</Button>
                )}
              </Group>
            </Box>
          </Card>
        </Grid.Col>
      </Grid>
    </>
  );
}
