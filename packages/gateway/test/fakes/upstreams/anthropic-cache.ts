/**
 * A loopback Anthropic Messages upstream that implements prompt caching honestly, as Anthropic
 * documents it: a request's blocks (tools, then system, then the messages' content blocks) form a
 * prefix; a block with `cache_control` is a breakpoint (at most four, else 400); a breakpoint whose
 * prefix holds at least the model's minimum (1024 tokens, 2048 for Haiku) writes a cache entry for
 * that prefix, kept for its TTL (`5m`, or `1h`) after its last use; a later request reads the longest
 * prefix that an entry holds, looked up at each breakpoint and the 19 blocks before it. Entries belong
 * to one API key and one model: another key never reads them. Usage is reported like Anthropic's:
 * `input_tokens` (after the last breakpoint), `cache_creation_input_tokens`, `cache_read_input_tokens`.
 * Tokens are counted as four characters each. The clock can be moved forward (`advance`) to let
 * entries expire.
 *
 * Answers depend only on what the request says, never on the cache: a last user text that starts
 * with `run:` (with tools offered) is answered with a call of the first tool whose `command` is the
 * rest of the text; anything else with a text naming a digest of the conversation.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

/** What one request read, wrote and paid in full, as the fake reported it. */
export interface CacheReport {
  key: string;
  inputTokens: number;
  cacheCreation: number;
  cacheRead: number;
  breakpoints: number;
}

export interface CachingAnthropic {
  up: FakeUpstream;
  url: string;
  /** One report per answered request, in order. */
  reports: CacheReport[];
  /** Moves the fake's clock forward (entries expire by it). */
  advance(ms: number): void;
  close(): Promise<void>;
}

const OUTPUT_TOKENS = 12;

const tokensOf = (s: string) => Math.ceil(s.length / 4);

/** A block as it counts for the prefix: without its cache_control. */
function plain(b: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _cc, ...rest } = b;
  return rest;
}

function blockTokens(b: Record<string, unknown>): number {
  if (b.type === 'text') return tokensOf(String(b.text ?? ''));
  if (b.type === 'tool_result') {
    const c = b.content;
    return tokensOf(typeof c === 'string' ? c : JSON.stringify(c ?? ''));
  }
  return tokensOf(JSON.stringify(plain(b)));
}

interface Block {
  hashInput: string;
  tokens: number;
  cc: Record<string, unknown> | null;
}

/** The request's blocks in prefix order: tools, system, then each message's content blocks. */
function blocksOf(body: any): Block[] {
  const out: Block[] = [];
  const add = (where: string, b: Record<string, unknown>, tokens: number) =>
    out.push({
      hashInput: `${where}\n${JSON.stringify(plain(b))}`,
      tokens,
      cc: b.cache_control && typeof b.cache_control === 'object' ? (b.cache_control as Record<string, unknown>) : null,
    });
  for (const t of body.tools ?? []) add('tool', t, tokensOf(JSON.stringify(plain(t))));
  const sys = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const b of sys) add('system', b, blockTokens(b));
  for (const m of body.messages ?? []) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of content) add(m.role, b, blockTokens(b));
  }
  return out;
}

export async function startCachingAnthropic(keys: string[]): Promise<CachingAnthropic> {
  let offset = 0;
  const now = () => Date.now() + offset;
  /** `key\nmodel\nprefix hash` → when the entry expires and how long it lives. */
  const entries = new Map<string, { exp: number; ttl: number }>();
  const reports: CacheReport[] = [];

  function handle(r: Recorded, res: ServerResponse): void | Promise<void> {
    if (!r.path.startsWith('/v1/messages'))
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not found' } });
    const key = String(r.headers['x-api-key'] ?? '');
    if (!keys.includes(key))
      return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    const b = r.body;
    const bad = (message: string) => json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
    if (!b || typeof b.max_tokens !== 'number' || !Array.isArray(b.messages)) return bad('max_tokens and messages are required');
    const blocks = blocksOf(b);
    const marks = blocks.flatMap((x, i) => (x.cc ? [i] : []));
    if (marks.length > 4) return bad(`A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
    for (const i of marks) {
      const cc = blocks[i].cc!;
      if (cc.type !== 'ephemeral' || (cc.ttl !== undefined && cc.ttl !== '5m' && cc.ttl !== '1h')) return bad('cache_control: invalid');
    }
    // The prefix hash and token count through each block.
    const hashes: string[] = [];
    const cum: number[] = [];
    let h = '';
    let total = 0;
    for (const x of blocks) {
      h = createHash('sha256').update(h).update(x.hashInput).digest('hex');
      hashes.push(h);
      total += x.tokens;
      cum.push(total);
    }
    const scope = `${key}\n${b.model}\n`;
    const t = now();
    const live = (i: number) => {
      const e = entries.get(scope + hashes[i]);
      return e && e.exp > t ? e : null;
    };
    // The longest cached prefix, looked up at each breakpoint and the 19 blocks before it.
    let hit = -1;
    for (const m of marks) {
      for (let i = m; i >= Math.max(0, m - 19); i--) {
        if (i > hit && live(i)) {
          hit = i;
          break;
        }
      }
    }
    const read = hit >= 0 ? cum[hit] : 0;
    if (hit >= 0) {
      const e = live(hit)!;
      e.exp = t + e.ttl;
    }
    const min = /haiku/i.test(String(b.model)) ? 2048 : 1024;
    let creation = 0;
    const last = marks.length ? marks[marks.length - 1] : -1;
    if (last >= 0 && cum[last] >= min) {
      for (const m of marks) {
        if (cum[m] < min) continue;
        const ttl = blocks[m].cc!.ttl === '1h' ? 3_600_000 : 300_000;
        const e = entries.get(scope + hashes[m]);
        if (e && e.exp > t) e.exp = t + Math.max(e.ttl, ttl);
        else entries.set(scope + hashes[m], { exp: t + ttl, ttl });
      }
      creation = Math.max(0, cum[last] - read);
    }
    const usage = {
      input_tokens: total - read - creation,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: read,
    };
    reports.push({ key, inputTokens: usage.input_tokens, cacheCreation: creation, cacheRead: read, breakpoints: marks.length });
    return answer(b, usage, res);
  }

  const up = await startFake((r, res) => handle(r, res));
  return {
    up,
    url: up.url,
    reports,
    advance: (ms) => {
      offset += ms;
    },
    close: () => up.close(),
  };
}

/** The answer, from the request's content alone. */
function answer(b: any, usage: Record<string, number>, res: ServerResponse): void | Promise<void> {
  const last = b.messages[b.messages.length - 1];
  const lastBlocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const lastText = last.role === 'user' ? lastBlocks.filter((x: any) => x.type === 'text').at(-1)?.text : undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify(b.messages.map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map(plain)))))
    .digest('hex')
    .slice(0, 12);
  const tool =
    typeof lastText === 'string' && lastText.startsWith('run:') && Array.isArray(b.tools) && b.tools.length
      ? { type: 'tool_use', id: `toolu_${digest}`, name: b.tools[0].name, input: { command: lastText.slice(4).trim() } }
      : null;
  const content = tool ? [tool] : [{ type: 'text', text: `Noted (${digest}).` }];
  const stop = tool ? 'tool_use' : 'end_turn';
  if (!b.stream) {
    return json(res, 200, {
      id: `msg_${digest}`,
      type: 'message',
      role: 'assistant',
      model: b.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { ...usage, output_tokens: OUTPUT_TOKENS },
    });
  }
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  const c = content[0] as any;
  return sse(
    res,
    [
      ev('message_start', {
        message: {
          id: `msg_${digest}`,
          type: 'message',
          role: 'assistant',
          model: b.model,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
      ev('content_block_start', { index: 0, content_block: tool ? { ...c, input: {} } : { type: 'text', text: '' } }),
      ev('content_block_delta', {
        index: 0,
        delta: tool ? { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } : { type: 'text_delta', text: c.text },
      }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: OUTPUT_TOKENS } }),
      ev('message_stop', {}),
    ],
    0,
  );
}
