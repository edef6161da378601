import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

/**
 * The HTTP edge reaches the world through use cases (.dependency-cruiser.cjs, rule
 * http-goes-through-use-cases, forbids the imports). A route can still reach the store or the
 * read model through the context it is handed without importing anything, which no import rule
 * sees: this test reads the edge's sources for it.
 */
const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

it('no HTTP route calls the store or the seat-map read model directly (ctx.store, ctx.seatMaps)', () => {
  const reaches: string[] = [];
  for (const file of sources(join(root, 'src', 'http'))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (/\bctx\s*\.\s*(store|seatMaps)\b|\bctx\s*:\s*\{[^}]*\b(store|seatMaps)\b/.test(line) || /\{\s*[^}]*\b(store|seatMaps)\b[^}]*\}\s*=\s*(deps\.)?ctx\b/.test(line)) {
        reaches.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  expect(reaches).toEqual([]);
});
