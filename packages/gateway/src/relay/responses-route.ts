/**
 * Which family serves a pass-through call, asked by what receives one (the protocol routes for images and
 * `POST /v1/responses`, Responses over a WebSocket): a Responses call for a model no channel with the
 * Responses API serves is converted, and so is one whose answer an output guardrail checks (the converted
 * answer passes through the output stage): the chat family serves it with inbound `responses` (any chat,
 * Anthropic or Gemini channel answers it, relay/providers/responses/codec.ts); every other call is the
 * pass-through family's (relay/passthrough.ts).
 */
import type { Guardrails } from './guardrails.ts';
import type { RelayCall } from './chat-call.ts';
import type { PassCall } from './pass-kinds.ts';
import type { Relay } from './relay.ts';

/** Serves a pass-through call, by conversion when it is a Responses call to convert. */
export function servePassCall(svc: { relay: Relay; guardrails: Guardrails }, call: PassCall): Promise<void> {
  return converts(svc, call) ? svc.relay.handle(asChatCall(call)) : svc.relay.pass.handle(call);
}

/** Whether the call is a Responses call the chat family serves by conversion. */
function converts(svc: { relay: Relay; guardrails: Guardrails }, call: PassCall): boolean {
  if (call.kind !== 'responses' || call.multipart) return false;
  const model = call.body.model;
  const guarded = typeof model === 'string' && svc.guardrails.select(call.principal, model, 'output').length > 0;
  return guarded || !svc.relay.pass.servesResponses(call.principal.group, model);
}

/** The Responses call as the chat family receives it. */
function asChatCall(call: PassCall): RelayCall {
  return {
    kind: 'chat',
    inbound: 'responses',
    principal: call.principal,
    body: call.body,
    raw: call.raw,
    scan: call.scan,
    endpoint: call.endpoint,
    requestId: call.requestId,
    startedAt: call.startedAt,
    client: call.client,
    vendorHeaders: call.vendorHeaders,
  };
}
