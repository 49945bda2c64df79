/**
 * Request bodies of the endpoints that take files (task submissions, image/video/Responses protocols,
 * plugin native routes, audio uploads): JSON, form and multipart, decoded by one decoder under one set
 * of limits. Multipart files are counted chunk by chunk as they arrive: the request is refused with
 * 413 as soon as a file or the files together pass the limit, and nothing past it is buffered.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { fail } from '../platform/errors.ts';
import type { DecodedBody, UploadedFile } from '../tasks/lifecycle/service.ts';
import { fileRefOf } from '../tasks/outbound/request.ts';

/** Counts of parts, fields and files per request, and the size of one file and one field. */
export const FILE_LIMITS = { fileSize: 64 * 1024 * 1024, files: 32, parts: 256, fields: 256, fieldSize: 1024 * 1024 };

export interface UploadLimits {
  /** Total bytes of all files of one request (MAX_UPLOAD_MB). */
  totalBytes: number;
}

const fileLimit = (limits: UploadLimits) => Math.min(FILE_LIMITS.fileSize, limits.totalBytes);

const tooLarge = (what: string, limit: number, per: string) =>
  fail('request_too_large', `${what} too large: the limit is ${+(limit / (1024 * 1024)).toFixed(2)} MiB ${per}`);

/** Registers the body parsers the file-taking endpoints accept: JSON (Fastify's), form and multipart. */
export async function registerUploadParsers(scope: FastifyInstance, limits: UploadLimits): Promise<void> {
  // No body is read by the multipart parser itself: decodeRequestBody reads the parts in the handler
  // and refuses a file at the first byte past its limit (busboy would skip the rest of the part).
  await scope.register(multipart, { limits: { ...FILE_LIMITS, fileSize: fileLimit(limits) + 1 } });
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const fields: Record<string, string[]> = {};
    for (const [k, v] of new URLSearchParams(body as string)) (fields[k] ??= []).push(v);
    done(null, { __form: fields });
  });
}

/**
 * The decoded inbound body. Multipart files are read into memory within the limits and named
 * `request_file:<field>`, then `request_file:<field>#1`, `#2`, ... for further files of one field.
 */
export async function decodeRequestBody(req: FastifyRequest, limits: UploadLimits): Promise<{ body: DecodedBody; files: UploadedFile[] }> {
  if (req.isMultipart()) {
    const fields: Record<string, string[]> = {};
    const files: UploadedFile[] = [];
    const perField = new Map<string, number>();
    let total = 0;
    const perFile = fileLimit(limits);
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          size += chunk.length;
          total += chunk.length;
          if (size > perFile) throw tooLarge(`the file "${part.fieldname.slice(0, 100)}" is`, perFile, 'per file');
          if (total > limits.totalBytes) throw tooLarge('the uploaded files are', limits.totalBytes, 'per request');
          chunks.push(chunk);
        }
        const data = Buffer.concat(chunks, size);
        const n = perField.get(part.fieldname) ?? 0;
        perField.set(part.fieldname, n + 1);
        files.push({
          ref: n === 0 ? `request_file:${part.fieldname}` : `request_file:${part.fieldname}#${n}`,
          field: part.fieldname,
          filename: part.filename ?? '',
          mimeType: part.mimetype || 'application/octet-stream',
          size: data.length,
          data,
        });
      } else {
        (fields[part.fieldname] ??= []).push(String(part.value ?? ''));
      }
    }
    return { body: { kind: 'multipart', fields, files: files.map(fileRefOf) }, files };
  }
  const b = req.body as unknown;
  if (b && typeof b === 'object' && '__form' in (b as object))
    return { body: { kind: 'form', fields: (b as { __form: Record<string, string[]> }).__form }, files: [] };
  if (b === undefined || b === null || (typeof b === 'string' && b === '')) return { body: { kind: 'none' }, files: [] };
  return { body: { kind: 'json', value: b }, files: [] };
}
