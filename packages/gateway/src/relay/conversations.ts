/**
 * Conversations of Responses calls served by another vendor's format: the canonical messages in and
 * the answer out, kept under the Response id so that `previous_response_id` can continue them (each
 * call then sends the whole conversation to the upstream, which has no memory of its own). Only the
 * user who made a Response can continue it. Conversations larger than MAX_BYTES are not kept.
 */
import type { Core } from '../core.ts';
import { GatewayError, echo } from '../platform/errors.ts';
import { isUniqueViolation } from '../store/db.ts';
import type { Message } from './formats/index.ts';

const MAX_BYTES = 8 * 1024 * 1024;

export class Conversations {
  constructor(private readonly core: Core) {}

  /** Keeps the conversation of `responseId` (input and answer, without system messages). */
  async keep(responseId: string, userId: number, model: string, messages: Message[]): Promise<void> {
    const json = JSON.stringify(messages.filter((m) => m.role !== 'system'));
    if (json.length > MAX_BYTES) return;
    try {
      await this.core.h.db.insertInto('relay_conversations').values({ response_id: responseId, user_id: userId, model, messages: json, created_at: Date.now() }).execute();
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }

  /** The messages of `responseId` for `userId`; 404 (`previous_response_not_found`) when there is none of theirs. */
  async load(responseId: string, userId: number): Promise<Message[]> {
    const row = responseId.length <= 191
      ? await this.core.h.db.selectFrom('relay_conversations').select(['user_id', 'messages']).where('response_id', '=', responseId).executeTakeFirst()
      : undefined;
    if (!row || Number(row.user_id) !== userId) {
      throw new GatewayError(404, 'previous_response_not_found', `Previous response with id '${echo(responseId)}' not found.`, 'invalid_request_error');
    }
    return JSON.parse(row.messages) as Message[];
  }
}
