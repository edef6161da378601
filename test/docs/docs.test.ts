import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/http/error-registry.js';
import { openApiFile, renderOpenApi } from '../../scripts/generate-openapi.js';

// The docs are part of the product: they must stay true as the code moves.
const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('documentation', () => {
  it('ships an OpenAPI document that matches the route schemas (npm run docs:openapi regenerates it)', async () => {
    expect(readFileSync(openApiFile, 'utf8')).toBe(await renderOpenApi());
  });

  it('lists every error code with its HTTP status in docs/api.md', () => {
    const api = read('docs/api.md');
    const missing = Object.entries(errorStatus).filter(([code, status]) => !new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${status}\\s*\\|`).test(api));
    expect(missing).toEqual([]);
  });

  it('documents every environment variable the configuration reads in docs/operations.md', () => {
    const names = new Set(read('src/config.ts').match(/\bTICKETRUSH_[A-Z_]+\b|\b(?:PORT|HOST)\b/g) ?? []);
    expect(names.size).toBeGreaterThan(10);
    const operations = read('docs/operations.md');
    expect([...names].filter((name) => !operations.includes(`\`${name}\``))).toEqual([]);
  });

  it('has no broken relative links in README.md and docs/', () => {
    const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(join(root, dirname(file)), target))) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
