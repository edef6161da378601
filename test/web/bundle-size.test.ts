import { describe, expect, it } from 'vitest';
import { buyerJsBudgetBytes, webSizes } from '../../scripts/web-size.js';
import { ensureWebBuilt } from './browser.js';

describe('web front end size', () => {
  it(`keeps the buyer's JavaScript within ${buyerJsBudgetBytes / 1024} KB gzip, organizer and door code loaded on demand`, () => {
    ensureWebBuilt();
    const sizes = webSizes();
    console.log(`buyer JavaScript: ${(sizes.buyerGzipBytes / 1024).toFixed(1)} KB gzip in ${sizes.buyer.length} files; on demand: ${sizes.onDemand.map((s) => s.file).join(', ')}`);
    expect(sizes.buyerGzipBytes).toBeLessThanOrEqual(buyerJsBudgetBytes);
    expect(sizes.onDemand.map((s) => s.file).join(' ')).toMatch(/DoorPage.*|CreateShow/);
  });
});
