/**
 * i18next with the console's two languages. The language is the one chosen before (localStorage),
 * else the browser's (any Chinese → zh-CN), else English; `setLanguage` switches and remembers it.
 * Each language's texts are a chunk of their own, loaded when the language is used: the first load
 * carries one language, not both (`i18nReady` settles once the first is in).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import type en from './en.json';

/** Both files have the same keys: a key missing from zh-CN.json fails the type-check here. */
const TEXTS: Record<string, () => Promise<typeof en>> = {
  en: () => import('./en.json').then((m) => m.default),
  'zh-CN': () => import('./zh-CN.json').then((m) => m.default satisfies typeof en),
};

/** Loads a language's texts into i18next (once). */
async function loadTexts(lang: Language): Promise<void> {
  if (i18n.hasResourceBundle(lang, 'translation')) return;
  i18n.addResourceBundle(lang, 'translation', await TEXTS[lang]());
}

export const LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'zh-CN', label: '简体中文' },
] as const;
export type Language = (typeof LANGUAGES)[number]['value'];

const STORAGE_KEY = 'gatehouse.language';

function detect(): Language {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'zh-CN') return saved;
  } catch {}
  const langs = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const l of langs) {
    if (/^zh\b/i.test(l)) return 'zh-CN';
    if (/^en\b/i.test(l)) return 'en';
  }
  return 'en';
}

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}

const initial = detect();
document.documentElement.lang = initial;

/** Settles once i18next runs with the first language's texts (the app renders after it). */
export const i18nReady: Promise<unknown> = i18n
  .use(initReactI18next)
  .init({
    resources: {},
    lng: initial,
    // Both languages have every key (checked above), so no other language is needed as a fallback.
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  })
  .then(() => loadTexts(initial))
  .then(() => i18n.changeLanguage(initial));

export function setLanguage(lang: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {}
  document.documentElement.lang = lang;
  void loadTexts(lang).then(() => i18n.changeLanguage(lang));
}

export default i18n;
