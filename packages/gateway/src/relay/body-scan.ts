/**
 * One iterative walk over a parsed model-call body: refuses nesting deeper than MAX_JSON_DEPTH (the
 * codecs recurse, so a deep body must never reach them) and finds the media a request carries, for
 * the input bound of the reserve (relay/estimate.ts): inline data (data: URLs, base64 `data` /
 * `file_data` fields) is measured and classified by its media type, references (URLs, file ids) counted.
 */
import { MAX_JSON_DEPTH, tooDeep } from '../platform/json-depth.ts';

export { MAX_JSON_DEPTH };

export interface BodyScan {
  /** Characters of inline media data (not text the model reads as such). */
  inlineChars: number;
  /** Inline or referenced images. */
  images: number;
  /** Characters of inline audio and video data. */
  avChars: number;
  /** Characters of inline documents and other files. */
  fileChars: number;
  /** Referenced media whose size the request does not show (file ids, file URIs that are not images). */
  refs: number;
}

/** Keys of inline media data (a string over 256 characters under one of them is media, not text). */
export const INLINE_KEYS: ReadonlySet<string> = new Set(['data', 'file_data', 'b64_json']);
/** Keys of URLs (and data: URLs) of media. */
export const URL_KEYS: ReadonlySet<string> = new Set(['url', 'image_url', 'uri']);
/** Keys of references to uploaded files. */
export const REF_KEYS: ReadonlySet<string> = new Set(['file_id', 'fileUri', 'file_uri']);

type Kind = 'image' | 'av' | 'file';

function kindOf(mime: string): Kind {
  const m = mime.toLowerCase();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('audio/') || m.startsWith('video/')) return 'av';
  return 'file';
}

function mimeOf(parent: Record<string, unknown> | null, parentKey: string): string {
  if (parent) {
    const m = parent.mimeType ?? parent.mime_type ?? parent.media_type;
    if (typeof m === 'string') return m;
    if (parentKey === 'input_audio') return 'audio/' + String(parent.format ?? '');
  }
  return '';
}

/**
 * Walks `body` without recursion. Throws 400 `invalid_request` when it nests deeper than MAX_JSON_DEPTH.
 */
export function scanBody(body: unknown): BodyScan {
  const out: BodyScan = { inlineChars: 0, images: 0, avChars: 0, fileChars: 0, refs: 0 };
  if (typeof body !== 'object' || body === null) return out;
  // Parallel stacks: value, depth, key it was found under, the object holding it.
  const vals: unknown[] = [body];
  const depths: number[] = [1];
  const keys: string[] = [''];
  const parents: Array<Record<string, unknown> | null> = [null];
  const grand: string[] = [''];
  while (vals.length) {
    const v = vals.pop();
    const depth = depths.pop()!;
    const key = keys.pop()!;
    const parent = parents.pop()!;
    const parentKey = grand.pop()!;
    if (typeof v === 'string') {
      if (INLINE_KEYS.has(key) && v.length > 256) {
        let mime = mimeOf(parent, parentKey);
        if (!mime && v.startsWith('data:')) mime = v.slice(5, Math.max(5, v.indexOf(';'))).slice(0, 100);
        add(out, kindOf(mime || (key === 'b64_json' ? 'image/png' : 'application/octet-stream')), v.length);
      } else if (URL_KEYS.has(key)) {
        if (v.startsWith('data:')) add(out, kindOf(v.slice(5, Math.max(5, v.indexOf(';'))).slice(0, 100)), v.length);
        else if (/^(https?|gs):/i.test(v)) out.images++;
      } else if (REF_KEYS.has(key)) {
        const mime = mimeOf(parent, parentKey);
        if (mime && kindOf(mime) === 'image') out.images++;
        else out.refs++;
      }
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH) throw tooDeep();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x === 'object' && x !== null) {
          vals.push(x);
          depths.push(depth + 1);
          keys.push(key);
          parents.push(parent);
          grand.push(parentKey);
        }
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = o[k];
      if ((typeof x === 'object' && x !== null) || (typeof x === 'string' && (INLINE_KEYS.has(k) || URL_KEYS.has(k) || REF_KEYS.has(k)))) {
        vals.push(x);
        depths.push(depth + 1);
        keys.push(k);
        parents.push(o);
        grand.push(key);
      }
    }
  }
  return out;
}

function add(out: BodyScan, kind: Kind, chars: number): void {
  out.inlineChars += chars;
  if (kind === 'image') out.images++;
  else if (kind === 'av') out.avChars += chars;
  else out.fileChars += chars;
}
