/** When the OTEL_* variables turn tracing on, and that nothing is done while it is off. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractContext, injectContext, tracer, tracingWanted } from './tracing.ts';
import { ROOT_CONTEXT } from '@opentelemetry/api';

test('tracing is wanted only with an OTLP endpoint or exporter, and never when disabled', () => {
  assert.equal(tracingWanted({}), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  assert.equal(tracingWanted({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
});

test('while tracing is off there is no tracer, nothing is injected and callers get the root context', () => {
  assert.equal(tracer, null);
  const headers: Record<string, string> = {};
  injectContext(headers);
  assert.deepEqual(headers, {});
  assert.equal(extractContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }), ROOT_CONTEXT);
});
