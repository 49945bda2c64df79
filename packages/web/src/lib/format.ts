/** Number, money and time formatting in the user's language. */
import i18n from '../i18n';

const loc = () => (i18n.language === 'zh-CN' ? 'zh-CN' : 'en-US');

export const fmtInt = (n: number | null | undefined): string => (n == null ? '—' : new Intl.NumberFormat(loc()).format(n));
/** USD with 2–4 decimals; amounts under a cent keep up to 8, so the cost of one small call is not $0.00. */
export const fmtUsd = (usd: number | null | undefined, digits?: number): string =>
  usd == null
    ? '—'
    : `$${new Intl.NumberFormat(loc(), { minimumFractionDigits: 2, maximumFractionDigits: digits ?? (usd !== 0 && Math.abs(usd) < 0.01 ? 8 : 4) }).format(usd)}`;
export const fmtQuota = (quota: number | null | undefined, perUsd: number): string => (quota == null ? '—' : fmtUsd(quota / perUsd));
export const fmtMs = (ms: number | null | undefined): string =>
  ms == null ? '—' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
export const fmtPct = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 2 : 1)}%`;
export const fmtTime = (ms: number | null | undefined): string =>
  ms == null ? '—' : new Intl.DateTimeFormat(loc(), { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(ms));
export const fmtBucket = (ms: number, bucket: 'hour' | 'day'): string =>
  new Intl.DateTimeFormat(
    loc(),
    bucket === 'day' ? { month: 'short', day: 'numeric' } : { month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  ).format(new Date(ms));

/** `datetime-local` input value ↔ unix ms. */
export const toLocalInput = (ms: number): string => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};
export const fromLocalInput = (v: string): number | undefined => (v ? new Date(v).getTime() : undefined);
