import { signal } from '@preact/signals';
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

/** The message in the current language, with {name} placeholders filled in (numbers as the language writes them). */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const text = catalogs[lang.value][key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    return value === undefined ? `{${name}}` : typeof value === 'number' ? value.toLocaleString(lang.value) : value;
  });
}

export type { MessageKey };
