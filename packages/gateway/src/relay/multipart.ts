/**
 * multipart/form-data for upstream requests: fields first, then files. The body is produced part by
 * part from the held buffers (never concatenated), so a failed attempt can send it again to another
 * channel; its length is known up front.
 */
import { randomBytes } from 'node:crypto';

export interface MultipartFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface MultipartBody {
  contentType: string;
  length: number;
  /** A fresh iterator over the body bytes (one per attempt). */
  chunks(): Iterable<Buffer>;
}

const quoted = (s: string) => s.replace(/[\r\n"]/g, (c) => (c === '"' ? '%22' : c === '\r' ? '%0D' : '%0A'));

export function encodeMultipart(fields: Array<[string, string]>, files: MultipartFile[]): MultipartBody {
  const boundary = `----gatehouse${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${quoted(f.field)}"; filename="${quoted(f.filename || 'file')}"\r\ncontent-type: ${f.mimeType.replace(/[\r\n]/g, '') || 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    parts.push(f.data);
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const length = parts.reduce((n, b) => n + b.length, 0);
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, chunks: () => parts[Symbol.iterator]() };
}
