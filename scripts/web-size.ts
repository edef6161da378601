// Prints the compressed (gzip) size of the JavaScript a buyer downloads: the entry script and
// the chunks index.html preloads (organizer and door pages load on demand and are listed apart).
// Usage: npm run build:web && npm run size:web
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The buyer's JavaScript, compressed, may not exceed this (issue 15). */
export const buyerJsBudgetBytes = 100 * 1024;
export const webDist = resolve(import.meta.dirname, '..', 'dist', 'web');

export interface FileSize {
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

export function webSizes(dir = webDist): { buyer: FileSize[]; onDemand: FileSize[]; buyerGzipBytes: number } {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const initial = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]));
  const size = (file: string): FileSize => {
    const raw = readFileSync(join(dir, file));
    return { file, bytes: raw.length, gzipBytes: gzipSync(raw, { level: 9 }).length };
  };
  const all = readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.js')).map((f) => size(`assets/${f}`));
  const buyer = all.filter((s) => initial.has(s.file));
  return { buyer, onDemand: all.filter((s) => !initial.has(s.file)), buyerGzipBytes: buyer.reduce((n, s) => n + s.gzipBytes, 0) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = webSizes();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const s of sizes.buyer) console.log(`buyer     ${s.file}  ${kb(s.bytes)} raw, ${kb(s.gzipBytes)} gzip`);
  for (const s of sizes.onDemand) console.log(`on demand ${s.file}  ${kb(s.bytes)} raw, ${kb(s.gzipBytes)} gzip`);
  console.log(`buyer JavaScript: ${kb(sizes.buyerGzipBytes)} gzip (budget ${kb(buyerJsBudgetBytes)})`);
}
