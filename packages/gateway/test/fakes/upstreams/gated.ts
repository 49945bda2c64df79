/**
 * A gated streaming upstream for tests of streams in flight (crashes, graceful stops): each stream
 * sends its first chunk at once, then waits until the test opens its gate (named by the user
 * message), then sends the rest with usage (1,000 + 2,000 tokens). A stream whose gate never opens
 * never ends. `beginStream` starts a call through the gateway and resolves at its first chunk.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startFake, type FakeUpstream, type Recorded } from './common.ts';

export interface GatedUpstream {
  up: FakeUpstream;
  /** Lets the stream named `name` finish (also one that has not started yet). */
  open(name: string): void;
}

export async function startGatedUpstream(): Promise<GatedUpstream> {
  const gates = new Map<string, () => void>();
  const opened = new Map<string, Promise<void>>();
  const gate = (name: string) => {
    if (!opened.has(name)) opened.set(name, new Promise<void>((r) => gates.set(name, r)));
    return opened.get(name)!;
  };
  const up = await startFake(async (r: Recorded, res: ServerResponse) => {
    const name = String(r.body.messages.at(-1).content);
    const base = { id: 'chatcmpl-gated', object: 'chat.completion.chunk', created: 1, model: r.body.model };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'first ' }, finish_reason: null }] })}\n\n`,
    );
    await gate(name);
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'last' }, finish_reason: 'stop' }] })}\n\n`);
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000 } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  return {
    up,
    open: (name: string) => {
      void gate(name);
      gates.get(name)!();
    },
  };
}

/**
 * Starts a stream of `model` named `name` and resolves once its first chunk arrived (the reserve is
 * taken, the upstream answering); `rest` is the text that follows, up to the end or the cut.
 */
export async function beginStream(
  url: string,
  key: string,
  name: string,
  model: string,
): Promise<{ requestId: string; rest: Promise<string> }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4000,
      messages: [{ role: 'user', content: name }],
    }),
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /first/);
  const rest = (async () => {
    let text = '';
    try {
      for (;;) {
        const c = await reader.read();
        if (c.done) return text;
        text += new TextDecoder().decode(c.value);
      }
    } catch {
      return text;
    }
  })();
  return { requestId: res.headers.get('x-request-id')!, rest };
}
