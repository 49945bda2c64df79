import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random id of `len` characters from [0-9a-zA-Z]. */
export function randomId(len = 24): string {
  const bytes = randomBytes(len);
  let out = '';
  for (let i = 0; i < len; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

export function requestId(): string {
  return 'req_' + randomId(20);
}

export const nowMs = (): number => Date.now();
export const nowSec = (): number => Math.floor(Date.now() / 1000);
