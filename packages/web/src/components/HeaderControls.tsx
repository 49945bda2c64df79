/** Language picker and light/dark switch (also on the login page). */
import { ActionIcon, Group, NativeSelect, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, setLanguage, type Language } from '../i18n';

export function HeaderControls() {
  const { t, i18n } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  return (
    <Group gap="xs" wrap="nowrap">
      {/* The browser's own select: two languages need no combobox, and the login page loads none. */}
      <NativeSelect
        aria-label={t('layout.language')}
        size="xs"
        w={120}
        data={LANGUAGES.map((l) => ({ value: l.value, label: l.label }))}
        value={i18n.language}
        onChange={(e) => setLanguage(e.currentTarget.value as Language)}
      />
      <ActionIcon
        variant="default"
        size="lg"
        onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
        aria-label={scheme === 'dark' ? t('layout.lightTheme') : t('layout.darkTheme')}
      >
        {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Group>
  );
}
