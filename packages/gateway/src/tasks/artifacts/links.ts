/**
 * Signed artifact links: `<base>/v1/tasks/<task>/artifacts/<key>/content?access=<sig>` where sig is
 * base64url(HMAC-SHA256(CRYPTO_SECRET, "v1\0" + task + "\0" + key)). The base is the public address
 * (PUBLIC_URL; the older TaskPublicAddress when set), else the address this node listens on; the
 * request's Host is never used.
 * Every node with the same CRYPTO_SECRET accepts them; rotating the secret invalidates them.
 */
import { hmacB64Url, safeEqual } from '../../platform/crypto.ts';

export function signArtifact(secret: string, taskId: string, key: string): string {
  return hmacB64Url(secret, `v1\0${taskId}\0${key}`);
}

export function verifyArtifact(secret: string, taskId: string, key: string, sig: unknown): boolean {
  return typeof sig === 'string' && sig.length > 0 && safeEqual(signArtifact(secret, taskId, key), sig);
}

export function artifactUrl(base: string, secret: string, taskId: string, key: string): string {
  const b = base.replace(/\/+$/, '');
  return `${b}/v1/tasks/${encodeURIComponent(taskId)}/artifacts/${encodeURIComponent(key)}/content?access=${signArtifact(secret, taskId, key)}`;
}

export const ARTIFACT_KEY = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;
export const ARTIFACT_TYPES = new Set(['video', 'audio', 'image', 'file']);

export interface Artifact {
  key: string;
  type: string;
  mimeType?: string;
}

/** Validates what listArtifacts returned. */
export function validateArtifacts(v: unknown): Artifact[] {
  if (!Array.isArray(v)) throw new Error('listArtifacts must return an array');
  if (v.length > 64) throw new Error('listArtifacts returned more than 64 items');
  const seen = new Set<string>();
  return v.map((a: Record<string, unknown>) => {
    if (!a || typeof a !== 'object') throw new Error('artifact must be an object');
    for (const k of Object.keys(a)) if (!['key', 'type', 'mimeType'].includes(k)) throw new Error(`artifact has unknown field "${k}"`);
    if (typeof a.key !== 'string' || !ARTIFACT_KEY.test(a.key)) throw new Error('artifact key is invalid');
    if (seen.has(a.key)) throw new Error(`artifact key "${a.key}" is repeated`);
    seen.add(a.key);
    if (typeof a.type !== 'string' || !ARTIFACT_TYPES.has(a.type)) throw new Error('artifact type must be video, audio, image or file');
    if (a.mimeType !== undefined && (typeof a.mimeType !== 'string' || a.mimeType.length > 255 || /[\r\n]/.test(a.mimeType)))
      throw new Error('artifact mimeType is invalid');
    return { key: a.key, type: a.type, ...(a.mimeType ? { mimeType: a.mimeType as string } : {}) };
  });
}
