/** The console's entry: styles, languages, then the app (once the language's texts are in). */
import './app/first-styles';
import { i18nReady } from './i18n';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

void i18nReady.finally(() => createRoot(document.getElementById('root')!).render(<App />));
