/**
 * A fake Gemini upstream: POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse,
 * with a function call when tools are offered on a user turn; :embedContent and :batchEmbedContents.
 */
import type { ServerResponse } from 'node:http';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

export const GEMINI_USAGE = { promptTokenCount: 13, candidatesTokenCount: 6, totalTokenCount: 19 };

export function startFakeGemini(): Promise<FakeUpstream> {
  return startFake(handle);
}

function handle(r: Recorded, res: ServerResponse, up: FakeUpstream): void | Promise<void> {
  const m = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)/.exec(r.path);
  if (!m) return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
  if (r.headers['x-goog-api-key'] !== 'g-key')
    return json(res, 403, { error: { code: 403, message: 'API key not valid', status: 'PERMISSION_DENIED' } });
  if (m[2] === 'embedContent') return json(res, 200, { embedding: { values: [0.5, 0.25] } });
  if (m[2] === 'batchEmbedContents')
    return json(res, 200, { embeddings: r.body.requests.map((_: unknown, i: number) => ({ values: [0.5, 0.25, i] })) });
  const b = r.body;
  const last = b.contents[b.contents.length - 1];
  const fnResp = (last.parts ?? []).find((p: any) => p.functionResponse);
  const wantsTool = Array.isArray(b.tools) && b.tools.length > 0 && !fnResp;
  const toolName = wantsTool ? b.tools[0].functionDeclarations[0].name : '';
  const text = fnResp ? `tool said: ${JSON.stringify(fnResp.functionResponse.response)}` : 'Hello from Gemini';
  const cand = (parts: unknown[], finish?: string) => ({
    content: { role: 'model', parts },
    index: 0,
    ...(finish ? { finishReason: finish } : {}),
  });
  if (m[2] === 'generateContent') {
    const parts = wantsTool ? [{ functionCall: { name: toolName, args: { city: 'Paris' } } }] : [{ text }];
    return json(res, 200, { candidates: [cand(parts, 'STOP')], usageMetadata: GEMINI_USAGE, modelVersion: m[1] });
  }
  const events: Array<{ data: unknown }> = [];
  if (wantsTool)
    events.push({
      data: { candidates: [cand([{ functionCall: { name: toolName, args: { city: 'Paris' } } }], 'STOP')], usageMetadata: GEMINI_USAGE },
    });
  else {
    const pieces = text.split(/(?<= )/);
    pieces.forEach((p, i) =>
      events.push({
        data: {
          candidates: [cand([{ text: p }], i === pieces.length - 1 ? 'STOP' : undefined)],
          ...(i === pieces.length - 1 ? { usageMetadata: GEMINI_USAGE } : {}),
        },
      }),
    );
  }
  return sse(res, events, up.delayMs);
}
