import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/http/error-registry.js';

/**
 * The web's message catalogs, checked without a browser: every message parses as ICU
 * MessageFormat and formats with the parameters its call sites give, counts are plurals, Chinese
 * uses full-width punctuation, and every error code the API can return reads in both languages.
 */
const root = resolve(import.meta.dirname, '../..');
type Catalog = Readonly<Record<string, string>>;
// Loaded by path: the web's modules resolve like a bundler's, which the server's tsconfig does not.
const catalogPath = (file: string) => join(root, 'web/src/i18n', file);
const en = ((await import(catalogPath('en.ts'))) as { en: Catalog }).en;
const zhCN = ((await import(catalogPath('zh-CN.ts'))) as { zhCN: Catalog }).zhCN;
const catalogs = [['en', en], ['zh-CN', zhCN]] as const;

/** The parser's element types we look into (see @formatjs/icu-messageformat-parser's TYPE). */
interface Element {
  readonly type: number;
  readonly value: string;
  readonly options?: Readonly<Record<string, { readonly value: readonly Element[] }>>;
}
const LITERAL = 0;
const PLURAL = 6;
const SELECT = 5;
const POUND = 7;

const parse = (text: string, locale: string): readonly Element[] =>
  new IntlMessageFormat(text, locale, undefined, { ignoreTag: true }).getAst() as unknown as readonly Element[];

/** Placeholders of a message: name → plural (needs a number) or plain. */
function argumentsOf(elements: readonly Element[], out = new Map<string, 'plural' | 'plain'>()): Map<string, 'plural' | 'plain'> {
  for (const e of elements) {
    if (e.type === LITERAL || e.type === POUND) continue;
    if (e.type === PLURAL) out.set(e.value, 'plural');
    else if (!out.has(e.value)) out.set(e.value, 'plain');
    for (const option of Object.values(e.options ?? {})) argumentsOf(option.value, out);
  }
  return out;
}

/** The text a reader sees, without placeholders and ICU syntax. */
function literalText(elements: readonly Element[]): string {
  return elements.map((e) => (e.type === LITERAL ? e.value : Object.values(e.options ?? {}).map((o) => literalText(o.value)).join(' '))).join('');
}

/** Every `t('key', { a, b: ... })` of the web's code: the key and the parameter names, or null when they are not plain to read. */
function callSites(): { key: string; params: string[] | null; file: string }[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) files.push(path);
    }
  };
  walk(join(root, 'web/src'));
  const sites: { key: string; params: string[] | null; file: string }[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/\bt\('(\w+)'(\s*,\s*\{)?/g)) {
      const key = m[1] as string;
      if (m[2] === undefined) {
        sites.push({ key, params: source[(m.index ?? 0) + m[0].length] === ')' ? [] : null, file });
        continue;
      }
      // Read the object literal up to its closing brace, splitting its top level at commas.
      let depth = 1;
      let i = (m.index ?? 0) + m[0].length;
      let part = '';
      const parts: string[] = [];
      for (; i < source.length && depth > 0; i++) {
        const c = source[i] as string;
        if ('([{'.includes(c)) depth++;
        if (')]}'.includes(c)) depth--;
        if (depth === 0) break;
        if (c === ',' && depth === 1) {
          parts.push(part);
          part = '';
        } else part += c;
      }
      parts.push(part);
      const names = parts.map((p) => p.trim()).filter((p) => p !== '').map((p) => /^(\w+)\s*(:|$)/.exec(p)?.[1] ?? null);
      sites.push({ key, params: names.includes(null) ? null : (names as string[]), file });
    }
  }
  return sites;
}

describe('web message catalogs', () => {
  it('have the same keys and the same placeholders in both languages', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en)) {
      const want = [...argumentsOf(parse(en[key] as string, 'en')).keys()].sort();
      expect([...argumentsOf(parse(zhCN[key] as string, 'zh-CN')).keys()].sort(), `zh-CN ${key}`).toEqual(want);
    }
  });

  it('parse as ICU MessageFormat and format with a number for every placeholder', () => {
    for (const [lang, catalog] of catalogs) {
      for (const [key, text] of Object.entries(catalog)) {
        const args = argumentsOf(parse(text, lang));
        for (const n of [0, 1, 2, 21]) {
          const params = Object.fromEntries([...args.keys()].map((name) => [name, n]));
          const out = String(new IntlMessageFormat(text, lang, undefined, { ignoreTag: true }).format(params));
          expect(out, `${lang} ${key}`).not.toMatch(/[{}#]/);
        }
      }
    }
  });

  it('are formatted with every placeholder they name, at every call site the code spells out', () => {
    const sites = callSites();
    expect(sites.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const site of sites) {
      if (!(site.key in en)) {
        problems.push(`${site.file}: t('${site.key}') is not in the catalog`);
        continue;
      }
      if (site.params === null) continue;
      for (const [lang, catalog] of catalogs) {
        const args = argumentsOf(parse(catalog[site.key] as string, lang));
        const missing = [...args.keys()].filter((name) => !site.params?.includes(name));
        if (missing.length > 0) problems.push(`${site.file}: t('${site.key}') gives no ${missing.join(', ')} (${lang})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('count by ICU plural rules: no English count of seats, places or scans written as a bare number', () => {
    const bare = Object.entries(en).filter(([, text]) => /\{\w+\}\s+(seat|place|scan|ticket|order|hold|second|minute)s?\b/.test(text));
    expect(bare.map(([key]) => key)).toEqual([]);
    // What the issue saw, now right in both numbers.
    const format = (key: string, params: Record<string, number>) => String(new IntlMessageFormat(en[key] as string, 'en').format(params));
    expect(format('holdSelected', { n: 1 })).toBe('Hold 1 selected seat');
    expect(format('holdSelected', { n: 2 })).toBe('Hold 2 selected seats');
    expect(format('synced', { n: 1 })).toBe('Uploaded 1 offline scan.');
    expect(format('seatCounts', { available: 0, total: 1, held: 1, sold: 0 })).toBe('0 of 1 seat available · 1 held · 0 sold');
  });

  it('write Chinese with full-width punctuation, and English without it', () => {
    // Literal characters a field accepts are not punctuation.
    const literal = new Set(['usernameHint']);
    const ascii = Object.entries(zhCN).filter(([key, text]) => !literal.has(key) && /[,.:;()?!]/.test(literalText(parse(text, 'zh-CN'))));
    expect(ascii.map(([key, text]) => `${key}: ${text}`)).toEqual([]);
    const fullWidth = Object.entries(en).filter(([, text]) => /[，。：；（）？！、]/.test(text));
    expect(fullWidth.map(([key]) => key)).toEqual([]);
  });

  it('translate every error code of the registry into both languages (a new code without both fails here)', () => {
    const missing = Object.keys(errorStatus).flatMap((code) =>
      catalogs.filter(([, catalog]) => typeof catalog[`error${code}`] !== 'string' || (catalog[`error${code}`] as string).trim() === '').map(([lang]) => `${code} (${lang})`));
    expect(missing).toEqual([]);
    // And nothing the registry no longer has.
    const stale = Object.keys(en).filter((key) => /^error[A-Z_]+$/.test(key) && !(key.slice('error'.length) in errorStatus));
    expect(stale).toEqual([]);
  });
});
