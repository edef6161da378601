import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore } from '../../src/compose.js';
import { createBargain } from '../../src/domain/index.js';
import { loadConfig } from '../../src/config.js';
import type { Store } from '../../src/ports/engine/index.js';
import { createTestDatabase, type TestDatabase } from '../support/backend.js';

const root = join(import.meta.dirname, '../..');
let database: TestDatabase;
let store: Store;
let dir: string;

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'src/cli.ts'), ...args], {
  encoding: 'utf8', timeout: 60_000, cwd: dir, env: { ...process.env, ...database.env, TICKETRUSH_DEMO: '0' },
});

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'ticketrush-cli-data-' });
  store = await openConfiguredStore(loadConfig({ ...database.env, TICKETRUSH_DEMO: '0' }));
  dir = mkdtempSync(join(tmpdir(), 'ticketrush-cli-files-'));
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('ticketrush import codes / export winners (issue 23 items 3 and 5)', () => {
  it('imports a CSV file idempotently and exports the winners with a BOM', async () => {
    const now = Date.now();
    await store.createCodePool({ poolId: 'cpl_cli', title: 'CLI', description: '', imageUrl: null, saleStartsAt: now - 60_000, saleEndsAt: now + 86_400_000, createdAt: now });
    const file = join(dir, 'codes.csv');
    writeFileSync(file, `code,batch\n${Array.from({ length: 2_500 }, (_, i) => `K${i},b`).join('\n')}\nK1,again\n${'y'.repeat(200)},long\n`);
    const first = cli('import', 'codes', '--pool', 'cpl_cli', file);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout.trim())).toEqual({ imported: 2_500, duplicates: 1, rejected: 1 });
    const again = cli('import', 'codes', '--pool', 'cpl_cli', file);
    expect(JSON.parse(again.stdout.trim())).toEqual({ imported: 0, duplicates: 2_501, rejected: 1 });

    const userId = 'usr_cli';
    await store.insertUser({ userId, username: '+cli', passwordHash: 'x', role: 'BUYER', createdAt: now });
    await store.grabCode({ poolId: 'cpl_cli', userId, now });
    const exported = cli('export', 'winners', '--pool', 'cpl_cli');
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout.trim())).toEqual({ file: 'code-pool-cpl_cli-winners.csv', rows: 1 });
    expect(readFileSync(join(dir, 'code-pool-cpl_cli-winners.csv'), 'utf8')).toBe(`\uFEFFusername,code,grabbedAt\r\n'+cli,K0,${new Date(now).toISOString()}\r\n`);

    const missing = cli('import', 'codes', '--pool', 'cpl_none', file);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('CODE_POOL_NOT_FOUND');
  }, 120_000);

  it('exports a bargain\'s bargain orders and a flash sale\'s orders (export bargain-orders / flash-sale-orders)', async () => {
    const now = Date.now();
    const made = createBargain({ title: 'CLI bargain', goods: '砍价锅', originalPriceCents: 1000, floorPriceCents: 500, cutMinCents: 10, cutMaxCents: 20, minCuts: 1, stock: 3, saleStartsAt: now - 60_000, saleEndsAt: now + 86_400_000 }, 'brg_cli', now);
    if (!made.ok) throw new Error(made.error.message);
    await store.createBargain(made.value);
    await store.insertUser({ userId: 'usr_cli_b', username: '砍价人', passwordHash: 'x', role: 'BUYER', createdAt: now });
    await store.startBargain({ bargainId: 'brg_cli', userId: 'usr_cli_b', bargainOrderId: 'bgo_cli', now });
    const exported = cli('export', 'bargain-orders', '--bargain', 'brg_cli');
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout.trim())).toEqual({ file: 'bargain-brg_cli-orders.csv', rows: 1 });
    expect(readFileSync(join(dir, 'bargain-brg_cli-orders.csv'), 'utf8')).toBe(
      `\uFEFFbargainOrderId,username,currentPriceCents,cuts,orderId,orderStatus,createdAt\r\nbgo_cli,砍价人,1000,0,,,${new Date(now).toISOString()}\r\n`);
    const missing = cli('export', 'flash-sale-orders', '--flash-sale', 'fls_none');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('ACTIVITY_NOT_FOUND');
  }, 120_000);
});
