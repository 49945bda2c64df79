import pino from 'pino';

/** Paths that may carry secrets; pino replaces them before anything is written. */
export const REDACT_PATHS = [
  'key',
  'keys',
  'apiKey',
  'api_key',
  'password',
  'token',
  'secret',
  'authorization',
  'cookie',
  '*.key',
  '*.keys',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  '*.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers.cookie',
];

export type Logger = pino.Logger;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: undefined }, destination);
}
