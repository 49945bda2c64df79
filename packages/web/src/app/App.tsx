/** Providers around the router: theme (light/dark, remembered), notifications, server state. */
import { MantineProvider, createTheme, localStorageColorSchemeManager, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { queryClient } from './query';
import { router } from './router';

const theme = createTheme({
  primaryColor: 'blue',
  // shade 8 in both schemes: white text on filled buttons meets WCAG AA contrast (shade 6 is 3.5:1)
  primaryShade: 8,
  defaultRadius: 'sm',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Microsoft YaHei", sans-serif',
});
// dimmed text one shade darker than Mantine's (gray 6 is 3.3:1 on white; WCAG AA asks 4.5:1)
const cssVariables: CSSVariablesResolver = () => ({ variables: {}, light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' }, dark: {} });
const colorSchemeManager = localStorageColorSchemeManager({ key: 'gatehouse.color-scheme' });

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager} cssVariablesResolver={cssVariables}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
