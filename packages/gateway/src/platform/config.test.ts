import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENV_ALIASES, loadConfig } from './config.ts';

const base = { CRYPTO_SECRET: 'x'.repeat(32), DATABASE_URL: 'sqlite::memory:' };

test('durations are read in seconds', () => {
  const c = loadConfig({
    ...base,
    TASK_TIMEOUT_SECONDS: '7200',
    TASK_CALLBACK_GIVE_UP_SECONDS: '60',
    TASK_PLUGIN_PROTOCOL_TICK_SECONDS: '0.5',
    PLUGIN_CALL_TIMEOUT_SECONDS: '1.234',
    LOG_RETENTION_SECONDS: String(30 * 86_400),
    RESPONSES_RETENTION_SECONDS: '0',
  });
  assert.equal(c.taskTimeoutMinutes, 120);
  assert.equal(c.taskCallbackGiveUpMs, 60_000);
  assert.equal(c.taskProtocolTickMs, 500);
  assert.equal(c.pluginCallTimeoutMs, 1234);
  assert.equal(c.logRetentionDays, 30);
  assert.equal(c.responsesRetentionDays, 0);
  assert.deepEqual(c.warnings, []);
  const d = loadConfig(base);
  assert.equal(d.taskTimeoutMinutes, 1440);
  assert.equal(d.taskProtocolTickMs, 2000);
  assert.equal(d.pluginCallTimeoutMs, 5000);
  assert.equal(d.responsesRetentionDays, 30);
  assert.equal(d.taskCallbackGiveUpMs, 86_400_000);
});

test('older names still work, converted, each with a warning; the current name wins', () => {
  const c = loadConfig({
    ...base,
    TASK_TIMEOUT_MINUTES: '30',
    TASK_CALLBACK_GIVE_UP_HOURS: '2',
    TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS: '1500',
    PLUGIN_CALL_TIMEOUT_MS: '1234',
    LOG_RETENTION_DAYS: '7',
    USAGE_RETENTION_DAYS: '90',
    RESPONSES_RETENTION_DAYS: '1',
    SERVER_ADDRESS: 'https://llm.example.com/',
  });
  assert.equal(c.taskTimeoutMinutes, 30);
  assert.equal(c.taskCallbackGiveUpMs, 7_200_000);
  assert.equal(c.taskProtocolTickMs, 1500);
  assert.equal(c.pluginCallTimeoutMs, 1234);
  assert.equal(c.logRetentionDays, 7);
  assert.equal(c.usageRetentionDays, 90);
  assert.equal(c.responsesRetentionDays, 1);
  assert.equal(c.publicUrl, 'https://llm.example.com');
  assert.equal(c.warnings.length, 8);
  assert.match(c.warnings.join('\n'), /TASK_TIMEOUT_MINUTES is an older name of TASK_TIMEOUT_SECONDS: .*TASK_TIMEOUT_SECONDS=1800/);
  assert.match(c.warnings.join('\n'), /SERVER_ADDRESS is an older name of PUBLIC_URL/);

  const both = loadConfig({ ...base, PUBLIC_URL: 'https://new.example.com', SERVER_ADDRESS: 'https://old.example.com' });
  assert.equal(both.publicUrl, 'https://new.example.com');
  assert.deepEqual(both.warnings, ['SERVER_ADDRESS is ignored: PUBLIC_URL is set (SERVER_ADDRESS is its older name)']);
  assert.throws(() => loadConfig({ ...base, TASK_TIMEOUT_MINUTES: 'soon' }), /TASK_TIMEOUT_MINUTES must be a number/);

  const links = loadConfig({ ...base, TASK_PUBLIC_ADDRESS: 'https://media.example.com/' });
  assert.equal(links.taskPublicAddress, 'https://media.example.com');
  assert.equal(links.publicUrl, null);
  assert.match(links.warnings[0], /TASK_PUBLIC_ADDRESS is an older setting/);
  for (const { name } of Object.values(ENV_ALIASES)) assert.match(name, /^(PUBLIC_URL|[A-Z_]+_SECONDS)$/);
});
