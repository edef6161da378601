import { signal } from '@preact/signals';
import { IntlMessageFormat } from 'intl-messageformat';
import { en, type MessageKey } from './en';
import { zhCN } from './zh-CN';

export type Lang = 'en' | 'zh-CN';
export const languages: readonly { readonly code: Lang; readonly name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'zh-CN', name: '简体中文' },
];
const catalogs: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };
const storageKey = 'tr.lang';

/** The browser's preferred language, unless the user picked one here. */
function initialLang(): Lang {
  const saved = localStorage.getItem(storageKey);
  if (saved === 'en' || saved === 'zh-CN') return saved;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of preferred) {
    if (tag.toLowerCase().startsWith('zh')) return 'zh-CN';
    if (tag.toLowerCase().startsWith('en')) return 'en';
  }
  return 'en';
}

export const lang = signal<Lang>(initialLang());
document.documentElement.lang = lang.value;

export function setLang(next: Lang): void {
  lang.value = next;
  localStorage.setItem(storageKey, next);
  document.documentElement.lang = next;
}

const formats = new Map<string, IntlMessageFormat>();

/**
 * The message in the current language. Messages are ICU MessageFormat: `{name}` placeholders
 * (numbers as the language writes them) and plurals by the language's rules
 * (`{n, plural, one {# seat} other {# seats}}`), so "Hold 1 selected seat" reads right in both.
 * Each message is parsed once per language.
 */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const cacheKey = `${lang.value}\u0000${key}`;
  let format = formats.get(cacheKey);
  if (format === undefined) {
    format = new IntlMessageFormat(catalogs[lang.value][key], lang.value, undefined, { ignoreTag: true });
    formats.set(cacheKey, format);
  }
  try {
    return String(format.format(params));
  } catch (error) {
    // A placeholder without its value is a bug of the caller: say so (the browser tests fail on
    // console errors) but keep the page readable.
    console.error(`message ${key}: ${String(error)}`);
    return catalogs[lang.value][key];
  }
}

/** Every message of every catalog, for the tests that parse and check them. */
export const allMessages = (): readonly { readonly lang: Lang; readonly key: MessageKey; readonly text: string }[] =>
  languages.flatMap(({ code }) => (Object.keys(catalogs[code]) as MessageKey[]).map((key) => ({ lang: code, key, text: catalogs[code][key] })));

export type { MessageKey };
