/** The console's entry: styles, languages, then the app. */
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './i18n';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

createRoot(document.getElementById('root')!).render(<App />);
