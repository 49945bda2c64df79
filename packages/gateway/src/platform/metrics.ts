/**
 * Prometheus metrics of this node, in memory (each node is scraped on its own): model calls by
 * endpoint, model and status, by channel, durations and time to first byte, tokens and quota; task
 * billing movements; process figures. Fed from the call log rows (logs/writer.ts) whether or not those
 * rows are kept, and rendered in the text exposition format at `GET /metrics` (http/app.ts).
 *
 * Labels come partly from callers (model names), so each family keeps at most MAX_SERIES label sets;
 * later ones are counted under a label set of `"other"` values.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** A finished model call, as its log row has it. */
export interface CallFacts {
  type: string;
  endpoint?: string | null;
  model?: string | null;
  channel_id?: number | null;
  status_code?: number | null;
  latency_ms?: number;
  first_byte_ms?: number | null;
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  quota?: number;
  attempts?: number;
}

const MAX_SERIES = 2000;
const BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  n = 0;
  observe(seconds: number): void {
    this.sum += seconds;
    this.n++;
    for (let i = 0; i < BUCKETS.length; i++)
      if (seconds <= BUCKETS[i]) {
        this.counts[i]++;
        return;
      }
  }
}

/** Counters keyed by their label values (joined with \u0000). */
class Family {
  readonly values = new Map<string, number>();
  /** The key of the label set that counts what comes past MAX_SERIES: every label "other". */
  private readonly overflow: string;
  constructor(readonly labels: readonly string[]) {
    this.overflow = labels.map(() => 'other').join('\u0000');
  }
  add(values: string[], by = 1): void {
    let k = values.join('\u0000');
    if (!this.values.has(k) && this.values.size >= MAX_SERIES) k = this.overflow;
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (names: readonly string[], values: readonly string[]) => names.map((n, i) => `${n}="${esc(values[i] ?? '')}"`).join(',');

export class Metrics {
  private readonly requests = new Family(['endpoint', 'model', 'status']);
  private readonly channels = new Family(['channel', 'status']);
  private readonly tokens = new Family(['model', 'kind']);
  private readonly quota = new Family(['model']);
  private readonly attempts = new Family(['endpoint']);
  private readonly taskMoves = new Family(['plugin', 'movement']);
  private readonly taskQuota = new Family(['plugin', 'movement']);
  private readonly guardrails = new Family(['plugin', 'action']);
  private readonly redisErrors = new Family(['use']);
  private readonly redisFallbacks = new Family(['use']);
  /** -1: no Redis configured; 1 up, 0 down. */
  private redisState = -1;
  private readonly durations = new Map<string, Histogram>();
  private readonly firstByte = new Map<string, Histogram>();
  private readonly loop = monitorEventLoopDelay({ resolution: 20 });
  private readonly startedAt = Date.now();

  /** `enabled` false (no METRICS_TOKEN: nobody can scrape): nothing is counted. */
  constructor(
    private readonly info: { version: string; node: string },
    readonly enabled = true,
  ) {
    if (enabled) this.loop.enable();
  }

  /** A model call ended (a `consume` or `error` log row); other row types are not calls. */
  call(r: CallFacts): void {
    if (!this.enabled || (r.type !== 'consume' && r.type !== 'error' && r.type !== 'mcp')) return;
    const endpoint = r.endpoint ?? '';
    const model = r.model ?? '';
    const status = r.status_code ? String(r.status_code) : r.type === 'error' ? 'error' : '200';
    this.requests.add([endpoint, model, status]);
    if (r.channel_id) this.channels.add([String(r.channel_id), status]);
    if (r.prompt_tokens) this.tokens.add([model, 'prompt'], r.prompt_tokens);
    if (r.completion_tokens) this.tokens.add([model, 'completion'], r.completion_tokens);
    if (r.cached_tokens) this.tokens.add([model, 'cached'], r.cached_tokens);
    if (r.quota) this.quota.add([model], r.quota);
    if (r.attempts) this.attempts.add([endpoint], r.attempts);
    if (this.durations.size < MAX_SERIES || this.durations.has(endpoint)) {
      let h = this.durations.get(endpoint);
      if (!h) this.durations.set(endpoint, (h = new Histogram()));
      h.observe((r.latency_ms ?? 0) / 1000);
      if (r.first_byte_ms !== null && r.first_byte_ms !== undefined) {
        let f = this.firstByte.get(endpoint);
        if (!f) this.firstByte.set(endpoint, (f = new Histogram()));
        f.observe(r.first_byte_ms / 1000);
      }
    }
  }

  /** A task was charged, settled or refunded (`movement`), moving `quota` units. */
  task(plugin: string, movement: string, quota: number): void {
    if (!this.enabled) return;
    this.taskMoves.add([plugin, movement]);
    if (quota) this.taskQuota.add([plugin, movement], Math.abs(quota));
  }

  /** A guardrail plugin answered a model call's check with `action` (allow, block, mask, annotate, error). */
  guardrail(plugin: string, action: string): void {
    if (!this.enabled) return;
    this.guardrails.add([plugin, action]);
  }

  /** The Redis connection went up or down (platform/redis-health.ts). */
  redisUp(up: boolean): void {
    this.redisState = up ? 1 : 0;
  }

  /** A Redis command for `use` failed or timed out. */
  redisError(use: string): void {
    if (this.enabled) this.redisErrors.add([use]);
  }

  /** A call of `use` was counted on this node alone because Redis was not usable. */
  redisFallback(use: string): void {
    if (this.enabled) this.redisFallbacks.add([use]);
  }

  /** The text exposition format (version 0.0.4). */
  render(): string {
    const out: string[] = [];
    const counter = (name: string, help: string, f: Family) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [k, v] of f.values) out.push(`${name}{${labelText(f.labels, k.split('\u0000'))}} ${v}`);
    };
    const histogram = (name: string, help: string, m: Map<string, Histogram>) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
      for (const [endpoint, h] of m) {
        const l = `endpoint="${esc(endpoint)}"`;
        let acc = 0;
        BUCKETS.forEach((b, i) => {
          acc += h.counts[i];
          out.push(`${name}_bucket{${l},le="${b}"} ${acc}`);
        });
        out.push(`${name}_bucket{${l},le="+Inf"} ${h.n}`, `${name}_sum{${l}} ${h.sum}`, `${name}_count{${l}} ${h.n}`);
      }
    };
    const gauge = (name: string, help: string, v: number, type = 'gauge') =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${v}`);

    out.push(
      '# HELP gatehouse_info Version and node id of this gateway.',
      '# TYPE gatehouse_info gauge',
      `gatehouse_info{${labelText(['version', 'node'], [this.info.version, this.info.node])}} 1`,
    );
    counter(
      'gatehouse_requests_total',
      'Model calls by endpoint, client model and status (200, or for a failed call the last upstream status; "error" when no upstream answered).',
      this.requests,
    );
    counter(
      'gatehouse_channel_requests_total',
      'Model calls by the channel of their last attempt, and status as in gatehouse_requests_total.',
      this.channels,
    );
    histogram('gatehouse_request_duration_seconds', "Time from a model call's arrival to its end.", this.durations);
    histogram('gatehouse_time_to_first_byte_seconds', 'Time to the first byte sent to the caller, for streams.', this.firstByte);
    counter('gatehouse_tokens_total', 'Tokens of model calls by client model and kind (prompt, completion, cached).', this.tokens);
    counter('gatehouse_quota_used_total', 'Quota units charged for model calls, by client model.', this.quota);
    counter('gatehouse_upstream_attempts_total', 'Upstream attempts made for model calls (retries included), by endpoint.', this.attempts);
    counter('gatehouse_task_billing_total', 'Task billing movements by plugin and movement (settle, refund, charge).', this.taskMoves);
    counter('gatehouse_task_quota_total', 'Quota units moved for tasks, by plugin and movement.', this.taskQuota);
    counter(
      'gatehouse_guardrail_verdicts_total',
      'Guardrail verdicts on model calls by plugin and action (allow, block, mask, annotate, error).',
      this.guardrails,
    );
    if (this.redisState >= 0) {
      gauge('gatehouse_redis_up', 'Whether this node reaches Redis (1) or counts limits and throttles on its own (0).', this.redisState);
      counter('gatehouse_redis_errors_total', 'Redis commands that failed or timed out, by what they were for.', this.redisErrors);
      counter(
        'gatehouse_redis_fallback_total',
        'Calls counted on this node alone because Redis was unavailable, by what they were for (rate_limits, a throttle, affinity).',
        this.redisFallbacks,
      );
    }
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', mem.rss);
    gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', mem.heapUsed);
    gauge('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.', (cpu.user + cpu.system) / 1e6, 'counter');
    gauge('process_start_time_seconds', 'Start time of the process since the epoch, in seconds.', Math.floor(this.startedAt / 1000));
    gauge('nodejs_eventloop_delay_p99_seconds', 'Event loop delay, 99th percentile since the last scrape.', this.loop.percentile(99) / 1e9);
    this.loop.reset();
    return `${out.join('\n')}\n`;
  }

  close(): void {
    this.loop.disable();
  }
}
