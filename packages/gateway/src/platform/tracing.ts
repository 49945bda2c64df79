/**
 * OpenTelemetry traces, configured by the standard `OTEL_*` variables. Tracing is per process: when
 * no OTLP endpoint is configured (or `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`), `tracer`
 * stays null and every call site skips its span with one null check — no tracing work on any path.
 *
 * When on: an OTLP/HTTP exporter (JSON; `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, … read by the exporter), a
 * batch span processor (`OTEL_BSP_*`), the sampler of `OTEL_TRACES_SAMPLER` / `_ARG` (default: parent
 * based, always on), the resource of `OTEL_SERVICE_NAME` (default `gatehouse`) and
 * `OTEL_RESOURCE_ATTRIBUTES`, AsyncLocalStorage for the active span, and W3C trace context in and out
 * (`traceparent` / `tracestate`: accepted from callers, sent to upstreams).
 */
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import type { Sampler, TracerProvider } from '@opentelemetry/sdk-trace';

export { SpanKind, type Span };

/** The process's tracer, or null when tracing is off (the call sites test it). */
export let tracer: Tracer | null = null;
let provider: TracerProvider | null = null;
let w3c: TextMapPropagator | null = null;

/** Whether the environment asks for traces. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.length && !exporters.includes('otlp')) return false;
  return exporters.includes('otlp') || !!(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

function num(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** OTEL_TRACES_SAMPLER as the specification names them; an unknown name is the default. */
function samplerFrom(env: NodeJS.ProcessEnv, sdk: typeof import('@opentelemetry/sdk-trace')): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk;
  const arg = num(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? 1 : Math.min(1, arg);
  switch ((env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `k=v,k2=v2` (values percent-encoded), as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES spell them. */
function headerList(v: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (v ?? '').split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    try {
      out[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* a malformed pair is skipped */
    }
  }
  return out;
}

/**
 * The exporter's endpoint, headers and time-out from `env` (the variables the specification names;
 * read here so that the environment the gateway was given is the one that counts).
 */
function exporterConfig(env: NodeJS.ProcessEnv): { url?: string; headers: Record<string, string>; timeoutMillis?: number } {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  return {
    ...(url ? { url } : {}),
    headers: { ...headerList(env.OTEL_EXPORTER_OTLP_HEADERS), ...headerList(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    timeoutMillis: num(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? num(env, 'OTEL_EXPORTER_OTLP_TIMEOUT'),
  };
}

/**
 * Starts tracing for this process when the environment asks for it. Returns whether it did (false when
 * not wanted or already started). The SDK is loaded only then.
 */
export async function startTracing(env: NodeJS.ProcessEnv, service: { version: string; instance: string }): Promise<boolean> {
  if (provider || !tracingWanted(env)) return false;
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
    ]);
  if (provider) return false;
  const resource = resourceFromAttributes({
    'service.version': service.version,
    'service.instance.id': service.instance,
    ...headerList(env.OTEL_RESOURCE_ATTRIBUTES),
    'service.name': env.OTEL_SERVICE_NAME?.trim() || headerList(env.OTEL_RESOURCE_ATTRIBUTES)['service.name'] || 'gatehouse',
  });
  provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFrom(env, sdk),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter(exporterConfig(env)),
        scheduledDelayMillis: num(env, 'OTEL_BSP_SCHEDULE_DELAY'),
        exportTimeoutMillis: num(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
        maxQueueSize: num(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
        maxExportBatchSize: num(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  w3c = new W3CTraceContextPropagator();
  tracer = provider.getTracer('gatehouse', service.version);
  return true;
}

/** Exports what is buffered and stops tracing. */
export async function stopTracing(): Promise<void> {
  const p = provider;
  provider = null;
  tracer = null;
  if (!p) return;
  await p.shutdown();
  context.disable();
  w3c = null;
}

/** The context of a caller's `traceparent` (and `tracestate`), or the root context. */
export function extractContext(headers: Record<string, string | string[] | undefined>): Context {
  if (!w3c) return ROOT_CONTEXT;
  return w3c.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing headers. No-op when tracing is off. */
export function injectContext(headers: Record<string, string>): void {
  if (tracer && w3c) w3c.inject(context.active(), headers, defaultTextMapSetter);
}

/** A span started under `parent` (not made active). */
export function startSpan(t: Tracer, name: string, kind: SpanKind, attributes: Attributes, parent: Context): Span {
  return t.startSpan(name, { kind, attributes }, parent);
}

/** Runs `fn` with `ctx` active (its awaits and callbacks see the span of `ctx`). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** `ctx` with `span` as its active span. */
export function contextWith(ctx: Context, span: Span): Context {
  return trace.setSpan(ctx, span);
}

/**
 * Runs `fn` in a child span of the active one, ending it when `fn` settles; a thrown error marks the
 * span as an error (its message, never a secret: GatewayError messages are written for callers).
 * Callers test `tracer` first so that nothing is allocated when tracing is off.
 */
export function inSpan<T>(
  t: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return t.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message?.slice(0, 300) ?? 'error' });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed with a short reason. */
export function spanError(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, 300) });
}
