import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random id of `len` characters from [0-9a-zA-Z]. */
export function randomId(len = 24): string {
  const bytes = randomBytes(len);
  let out = '';
  for (let i = 0; i < len; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

let pool = Buffer.alloc(0);
let poolAt = 0;

/** Random bytes from a pooled buffer (refilled 4 KB at a time): ids are made on every request. */
function pooledRandom(n: number): Buffer {
  if (poolAt + n > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/**
 * A request id: `req_`, the time in milliseconds (9 characters of base 36, so ids sort by time), and
 * 11 random characters from [0-9a-zA-Z] (65 bits). Ids made close in time are close in the ledger's
 * and the logs' indexes too, so writing them touches few pages.
 */
export function requestId(): string {
  const bytes = pooledRandom(11);
  let out = 'req_' + Date.now().toString(36).padStart(9, '0');
  for (let i = 0; i < 11; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

export const nowMs = (): number => Date.now();
export const nowSec = (): number => Math.floor(Date.now() / 1000);
