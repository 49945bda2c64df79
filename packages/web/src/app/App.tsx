/** Providers around the router: theme (light/dark, remembered) and server state (the toasts are the layout's). */
import { MantineProvider, createTheme, localStorageColorSchemeManager, type CSSVariablesResolver } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { queryClient } from './query';
import { router } from './router';

const theme = createTheme({
  primaryColor: 'blue',
  // the darkest shade of each colour for filled buttons: white text on blue and red meets WCAG AA contrast
  primaryShade: { light: 9, dark: 8 },
  defaultRadius: 'sm',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Microsoft YaHei", sans-serif',
});
// Dimmed, error and light-variant text with AA contrast: darker than Mantine's defaults in the light scheme, lighter dimmed text in the dark one
const COLORS = ['blue', 'green', 'red', 'orange', 'yellow', 'gray', 'teal', 'grape', 'cyan', 'pink', 'violet', 'indigo', 'lime'];
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-6)',
    ...Object.fromEntries(
      COLORS.map((c) => [`--mantine-color-${c}-light-color`, `color-mix(in srgb, var(--mantine-color-${c}-9) 65%, black)`]),
    ),
  },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});
const colorSchemeManager = localStorageColorSchemeManager({ key: 'gatehouse.color-scheme' });

export function App() {
  return (
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
    >
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
