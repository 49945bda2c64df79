/** Plugin icons: PNG (signature checked) or a safe SVG, at most 512 KiB, given as a data URI. */
import { fail } from '../../platform/errors.ts';

export const MAX_ICON_BYTES = 512 * 1024;
const PNG_SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function parseIcon(dataUri: string): { type: 'image/png' | 'image/svg+xml'; bytes: Buffer } {
  const bad = (m: string): never => {
    throw fail('invalid_icon', { problem: m });
  };
  const m = /^data:(image\/png|image\/svg\+xml)(;charset=[\w-]+)?(;base64)?,(.*)$/is.exec(dataUri.trim());
  if (!m) return bad('must be a data URI of image/png or image/svg+xml');
  const type = m[1].toLowerCase() as 'image/png' | 'image/svg+xml';
  const bytes = m[3] ? Buffer.from(m[4], 'base64') : Buffer.from(decodeURIComponent(m[4]), 'utf8');
  if (bytes.length === 0) bad('is empty');
  if (bytes.length > MAX_ICON_BYTES) bad('is larger than 512 KiB');
  if (type === 'image/png' && !bytes.subarray(0, 8).equals(PNG_SIG)) bad('is not a PNG file (bad signature)');
  if (type === 'image/svg+xml') checkSvg(bytes.toString('utf8'));
  return { type, bytes };
}

export function checkSvg(s: string): void {
  const bad = (m: string): never => {
    throw fail('invalid_icon', `icon: unsafe SVG (${m})`);
  };
  if (!/<svg[\s>]/i.test(s)) bad('no <svg> element');
  if (/<\s*(script|foreignObject|iframe|object|embed|audio|video|handler|listener)\b/i.test(s)) bad('active elements are not allowed');
  if (/\son[a-z]+\s*=/i.test(s)) bad('event handler attributes are not allowed');
  if (/javascript:|vbscript:|data:text\/html/i.test(s)) bad('script URLs are not allowed');
  if (/(?:xlink:)?href\s*=\s*["']\s*(?!#)/i.test(s)) bad('only fragment (#id) references are allowed');
  if (/<!ENTITY|<!DOCTYPE/i.test(s)) bad('DTDs and entities are not allowed');
  if (/@import|url\(\s*["']?\s*(?!#)/i.test(s)) bad('external style references are not allowed');
}
