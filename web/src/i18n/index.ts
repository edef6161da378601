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

interface Compiled {
  readonly format: IntlMessageFormat;
  /** Placeholders the message formats itself (plural, select, number...): they get the raw value. */
  readonly typed: ReadonlySet<string>;
}
const formats = new Map<string, Compiled>();
const numberFormats = new Map<Lang, Intl.NumberFormat>();

/** The parser's elements, as far as we look into them: type 1 is a plain `{name}`. */
interface Element {
  readonly type: number;
  readonly value?: unknown;
  readonly options?: Readonly<Record<string, { readonly value: readonly Element[] }>>;
}

function typedArguments(elements: readonly Element[], out: Set<string>): Set<string> {
  for (const e of elements) {
    if (e.type >= 2 && e.type <= 6 && typeof e.value === 'string') out.add(e.value);
    for (const option of Object.values(e.options ?? {})) typedArguments(option.value, out);
  }
  return out;
}

/**
 * The message in the current language. Messages are ICU MessageFormat: `{name}` placeholders
 * (numbers as the language writes them) and plurals by the language's rules
 * (`{n, plural, one {# seat} other {# seats}}`), so "Hold 1 selected seat" reads right in both.
 * Each message is parsed once per language.
 */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const cacheKey = `${lang.value}\u0000${key}`;
  let compiled = formats.get(cacheKey);
  if (compiled === undefined) {
    const format = new IntlMessageFormat(catalogs[lang.value][key], lang.value, undefined, { ignoreTag: true });
    compiled = { format, typed: typedArguments(format.getAst() as unknown as readonly Element[], new Set()) };
    formats.set(cacheKey, compiled);
  }
  // intl-messageformat writes a number in a plain `{name}` as String(n) ("20000"): write it as
  // the language does ("20,000"); plurals and the like get the number itself.
  let numbers = numberFormats.get(lang.value);
  if (numbers === undefined) numberFormats.set(lang.value, (numbers = new Intl.NumberFormat(lang.value)));
  const values: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(params)) values[name] = typeof value === 'number' && !compiled.typed.has(name) ? numbers.format(value) : value;
  try {
    return String(compiled.format.format(values));
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
