/**
 * The console's form fields beyond Mantine's own: lists (tags), JSON objects, and the validators the forms share
 * (date-times: DateTimeField.tsx).
 */
import { JsonInput, Select, TagsInput, type JsonInputProps, type SelectProps, type TagsInputProps } from '@mantine/core';
import type { TFunction } from 'i18next';

/** A list of strings typed as tags (Enter or comma adds one). */
export function ListField(props: TagsInputProps) {
  return <TagsInput splitChars={[',', ' ', '\n']} clearable acceptValueOnBlur {...props} />;
}

/** A JSON object in a code box; validated with `validJsonObject`. */
export function JsonField(props: JsonInputProps) {
  return (
    <JsonInput
      autosize
      minRows={3}
      maxRows={12}
      formatOnBlur
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      {...props}
    />
  );
}

/** An optional choice in a filter: '' means "any" (and shows no clear button). */
export function FilterSelect({
  value,
  onChange,
  ...props
}: Omit<SelectProps, 'value' | 'onChange'> & { value?: string; onChange?: (v: string) => void }) {
  return <Select clearable {...props} value={value || null} onChange={(v) => onChange?.(v ?? '')} />;
}

export const validators = (t: TFunction) => ({
  required: (v: unknown) =>
    v === undefined || v === null || (typeof v === 'string' && !v.trim()) || (Array.isArray(v) && v.length === 0)
      ? t('validation.required')
      : null,
  jsonObject: (v: string) => {
    if (!v.trim()) return null;
    try {
      const o = JSON.parse(v) as unknown;
      return o && typeof o === 'object' && !Array.isArray(o) ? null : t('validation.jsonObject');
    } catch {
      return t('validation.json');
    }
  },
  url: (v: string) => (!v.trim() || /^https?:\/\/[^\s]+$/i.test(v.trim()) ? null : t('validation.url')),
  nonNegative: (v: number | string | null | undefined) => (v === '' || v == null || Number(v) >= 0 ? null : t('validation.nonNegative')),
  password: (v: string) => (v.length >= 8 && v.length <= 256 ? null : t('validation.password')),
});

export const parseJsonObject = (v: string): Record<string, unknown> => (v.trim() ? (JSON.parse(v) as Record<string, unknown>) : {});
export const stringifyJson = (o: unknown): string =>
  o && typeof o === 'object' && Object.keys(o).length ? JSON.stringify(o, null, 2) : '';
