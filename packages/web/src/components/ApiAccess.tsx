/**
 * Where callers send their calls and how: the gateway's address (PUBLIC_URL, else the address this browser used)
 * and copyable examples — curl, the OpenAI SDKs for Python and Node.js, Claude Code and Codex — with a key (the one
 * just created) or a placeholder for one.
 */
import { ActionIcon, Code, CopyButton, Stack, Tabs, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { call, client } from '../api/client';
import { gatewayAddress, useSelf } from '../app/session';
import { CopyField } from './CopyField';

/** The gateway's address for callers, without a trailing slash. */
export function useGatewayAddress(): string {
  return gatewayAddress(useSelf().data);
}

/** The examples, by tab: each a shell or program text with the address, the key and a model filled in. */
export function apiExamples(base: string, key: string, model: string): Record<'curl' | 'python' | 'node' | 'claude' | 'codex', string> {
  const env = `export GATEHOUSE_API_KEY=${key}`;
  return {
    curl: [
      env,
      `curl ${base}/v1/chat/completions \\`,
      '  -H "Authorization: Bearer $GATEHOUSE_API_KEY" \\',
      '  -H "Content-Type: application/json" \\',
      `  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
    ].join('\n'),
    python: [
      '# pip install openai; GATEHOUSE_API_KEY in the environment',
      'import os',
      'from openai import OpenAI',
      '',
      `client = OpenAI(base_url="${base}/v1", api_key=os.environ["GATEHOUSE_API_KEY"])`,
      `reply = client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "Hello"}])`,
      'print(reply.choices[0].message.content)',
    ].join('\n'),
    node: [
      '// npm install openai; GATEHOUSE_API_KEY in the environment',
      "import OpenAI from 'openai';",
      '',
      `const client = new OpenAI({ baseURL: '${base}/v1', apiKey: process.env.GATEHOUSE_API_KEY });`,
      `const reply = await client.chat.completions.create({ model: '${model}', messages: [{ role: 'user', content: 'Hello' }] });`,
      'console.log(reply.choices[0].message.content);',
    ].join('\n'),
    claude: [env, `export ANTHROPIC_BASE_URL=${base}`, 'export ANTHROPIC_API_KEY=$GATEHOUSE_API_KEY', `claude --model ${model}`].join('\n'),
    codex: [
      '# ~/.codex/config.toml',
      'model_provider = "gatehouse"',
      `model = "${model}"`,
      '',
      '[model_providers.gatehouse]',
      'name = "Gatehouse"',
      `base_url = "${base}/v1"`,
      'env_key = "GATEHOUSE_API_KEY"',
      'wire_api = "responses"',
      '',
      '# then, in a shell:',
      env,
      'codex',
    ].join('\n'),
  };
}

function Example({ text, name }: { text: string; name: string }) {
  const { t } = useTranslation();
  const label = t('access.exampleNamed', { name });
  return (
    <div style={{ position: 'relative' }}>
      <Code block aria-label={label} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', paddingRight: 40 }}>
        {text}
      </Code>
      <CopyButton value={text}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? t('common.copied') : t('common.copy')} withArrow>
            <ActionIcon
              variant="subtle"
              color={copied ? 'teal' : 'gray'}
              onClick={copy}
              aria-label={t('access.copyExample', { name })}
              style={{ position: 'absolute', top: 6, right: 6 }}
            >
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </div>
  );
}

/** The address, then the examples in tabs. `apiKey`: the key to show in them (else a placeholder). */
export function ApiAccess({ apiKey }: { apiKey?: string }) {
  const { t } = useTranslation();
  const base = useGatewayAddress();
  const models = useQuery({ queryKey: ['user-models'], queryFn: () => call(client.GET('/api/user/models')) });
  const model = models.data?.items[0]?.model ?? 'gpt-4o-mini';
  const ex = apiExamples(base, apiKey ?? t('access.keyPlaceholder'), model);
  const tabs = [
    ['curl', 'curl'],
    ['python', t('access.python')],
    ['node', t('access.node')],
    ['claude', 'Claude Code'],
    ['codex', 'Codex'],
  ] as const;
  return (
    <Stack gap="xs">
      <CopyField label={t('access.baseUrl')} value={`${base}/v1`} />
      <Text size="xs" c="dimmed">
        {t('access.baseUrlHint', { base })}
      </Text>
      <Tabs defaultValue="curl" keepMounted={false}>
        <Tabs.List aria-label={t('access.examples')}>
          {tabs.map(([v, name]) => (
            <Tabs.Tab key={v} value={v}>
              {name}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {tabs.map(([v, name]) => (
          <Tabs.Panel key={v} value={v} pt="xs">
            <Example text={ex[v]} name={name} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
