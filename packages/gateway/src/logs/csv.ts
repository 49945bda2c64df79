/**
 * CSV text (RFC 4180): fields with a comma, quote, CR or LF are quoted and quotes doubled; lines end
 * with CRLF. Text that a spreadsheet would run as a formula (starting with = + - @ tab or CR) gets a
 * leading apostrophe; numbers are written as they are.
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
