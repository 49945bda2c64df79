/**
 * A local date and time, picked from a calendar in the console's language (@mantine/dates, with dayjs for the
 * Chinese calendar): the browser's own `datetime-local` picker follows the browser's locale, not the page's.
 */
import { DateTimePicker, type DateTimePickerProps } from '@mantine/dates';
import '@mantine/dates/styles.css';
import 'dayjs/locale/zh-cn';
import { useTranslation } from 'react-i18next';

/** The value is text like a `datetime-local` input's, `YYYY-MM-DDTHH:mm` ('' for none), as lib/format.ts reads and writes it. */
export function DateTimeField({
  value,
  onChange,
  ...props
}: Omit<DateTimePickerProps, 'value' | 'onChange'> & { value?: string; onChange?: (v: string) => void }) {
  const { t, i18n } = useTranslation();
  const zh = i18n.language === 'zh-CN';
  return (
    <DateTimePicker
      clearable
      miw={190}
      locale={zh ? 'zh-cn' : 'en'}
      valueFormat={zh ? 'YYYY年M月D日 HH:mm' : 'MMM D, YYYY HH:mm'}
      submitButtonProps={{ 'aria-label': t('common.apply') }}
      clearButtonProps={{ 'aria-label': t('common.clear') }}
      previousLabel={t('dates.previous')}
      nextLabel={t('dates.next')}
      {...props}
      value={value ? `${value.replace('T', ' ')}:00` : null}
      onChange={(v) => onChange?.(v ? v.slice(0, 16).replace(' ', 'T') : '')}
    />
  );
}
