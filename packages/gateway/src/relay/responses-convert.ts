/**
 * Responses calls served by conversion (the chat family with inbound `responses`, relay.ts): the earlier
 * turns a `previous_response_id` names, what a converted Response repeats of its request, the Response
 * (or the encoder of its event stream) for the caller, and the conversation kept for the next turn
 * (relay/conversations.ts).
 */
import type { Core } from '../core.ts';
import { isObj } from '../platform/validate.ts';
import type { CanonicalRequest, CanonicalResponse, Message, StreamEncoder, StreamEncoderOptions } from './providers/index.ts';
import * as responses from './providers/responses/codec.ts';
import { Conversations } from './conversations.ts';
import type { Ctx } from './chat-call.ts';

export class ResponsesConversion {
  /** Conversations of Responses calls served by conversion (`previous_response_id`). */
  readonly conversations: Conversations;

  constructor(
    private readonly core: Core,
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
  ) {
    this.conversations = new Conversations(core);
  }

  /** Puts the earlier turns of the conversation `previousId` after the new instructions and before the new input. */
  async addHistory(canonical: CanonicalRequest, previousId: string, userId: number): Promise<void> {
    const history = await this.conversations.load(previousId, userId);
    const lead = canonical.messages.findIndex((m) => m.role !== 'system');
    canonical.messages.splice(lead < 0 ? canonical.messages.length : lead, 0, ...history);
  }

  /** The converted Response of a whole answer (its conversation kept). */
  answer(ctx: Ctx, decoded: CanonicalResponse): string {
    const r = responses.encodeResponse(decoded, ctx.model, ctx.call.requestId, this.echo(ctx));
    this.keep(ctx, r.output as unknown[]);
    return JSON.stringify(r);
  }

  /** The encoder of a converted Response's event stream (its conversation kept at the end). */
  streamEncoder(ctx: Ctx, opts: StreamEncoderOptions): StreamEncoder {
    return responses.createStreamEncoder(opts, this.echo(ctx), (output) => this.keep(ctx, output));
  }

  /** What a converted Response repeats of its request. */
  private echo(ctx: Ctx): responses.ResponseEcho {
    const b = ctx.call.body;
    return {
      customTools: responses.customToolNames(ctx.canonical),
      namespacedTools: responses.namespacedToolNames(ctx.canonical),
      previousResponseId: typeof b.previous_response_id === 'string' ? b.previous_response_id : null,
      store: b.store !== false,
      ...(isObj(b.text) && isObj(b.text.format) ? { textFormat: b.text.format } : {}),
    };
  }

  /** Keeps a converted Response's conversation for `previous_response_id` (unless `store: false`). */
  private keep(ctx: Ctx, output: unknown[]): void {
    if (ctx.call.body.store === false || !ctx.canonical) return;
    const messages: Message[] = [...ctx.canonical.messages, ...responses.outputMessages(output)];
    this.track(this.conversations.keep(responses.responseId(ctx.call.requestId), ctx.call.principal.userId, ctx.model, messages)).catch(
      (e: unknown) => {
        this.core.log.warn({ err: (e as Error).message, requestId: ctx.call.requestId }, 'a Responses conversation could not be kept');
      },
    );
  }
}
