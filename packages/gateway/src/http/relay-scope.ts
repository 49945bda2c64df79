/**
 * The scope every model-call route module (relay-routes.ts, relay-family-routes.ts,
 * relay-passthrough-routes.ts) registers its routes in: the family's error envelope, the JSON body
 * parser that keeps the body bytes, and the decoding of a call's JSON object body.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../platform/errors.ts';
import { scanBody, type BodyScan } from '../relay/body-scan.ts';
import { familyErrorHandler, type Family } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
    /** The parsed body's media and depth (relay/body-scan.ts), found while parsing. */
    bodyScan?: BodyScan;
  }
}

/**
 * Sets up an encapsulated scope for model calls: the family's error envelope, a JSON parser that keeps
 * the body bytes (an unchanged request is sent upstream as received), and the gateway-time header on
 * answers the relay did not write itself.
 */
export function prepareRelayScope(scope: FastifyInstance, family: Family): void {
  scope.setErrorHandler(familyErrorHandler(family));
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    const buf = body as Buffer;
    (req as FastifyRequest).rawBody = buf;
    if (buf.length === 0) return done(fail('invalid_json', 'request body is empty; a JSON body is required'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(buf.toString('utf8'));
    } catch (e) {
      return done(fail('invalid_json', { reason: (e as Error).message }));
    }
    try {
      // Refuses bodies nested too deep for the codecs (400) and measures the media for the reserve.
      (req as FastifyRequest).bodyScan = scanBody(parsed);
    } catch (e) {
      return done(e as Error);
    }
    done(null, parsed);
  });
  scope.addHook('onSend', async (req, reply, payload) => {
    if (!reply.hasHeader('x-gatehouse-time-ms'))
      reply.header('x-gatehouse-time-ms', (Number(process.hrtime.bigint() - req.startedAt) / 1e6).toFixed(2));
    return payload;
  });
}

/** The JSON object body of a model call (400 otherwise). */
export function objectBody(req: FastifyRequest): Record<string, unknown> {
  const body = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fail('invalid_json', 'the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
