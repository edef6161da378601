import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { crowd, percentiles } from '../support/crowd.js';
import type { HttpBuyer, HttpReply } from '../support/http-buyer.js';
import { sleep } from '../support/wait.js';

/**
 * Issue 23 item 7: 1,000 buyers grab at once from a pool of 300 codes over real sockets. Exactly
 * 300 distinct codes go out, each to one buyer, and the other 700 hear 409 SOLD_OUT; one buyer
 * grabbing 50 times at once gets one code. A 503 BUSY (the store saturated: a client retries after
 * Retry-After) is retried, never counted as an answer.
 */
const buyersCount = 1_000;
const codesCount = 300;
const busyRetriesMax = 50;

let t: TestNode & { baseUrl: string };
let poolId: string;
let buyers: HttpBuyer[];

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
  const admin = await adminClient(t.node.app);
  const now = Date.now();
  poolId = (await admin.request('POST', '/api/v1/admin/code-pools', {
    title: 'Rush', saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
  })).body.poolId;
  const codes = Array.from({ length: codesCount }, (_, i) => `RUSH-${String(i).padStart(4, '0')}`);
  expect((await admin.request('POST', `/api/v1/admin/code-pools/${poolId}/codes`, { codes })).body).toEqual({ imported: codesCount, duplicates: 0, rejected: 0 });
  buyers = await crowd(t, buyersCount, 'grabber');
}, 120_000);
afterAll(async () => t?.close());

let busyAnswers = 0;
async function grab(buyer: HttpBuyer): Promise<HttpReply> {
  for (let attempt = 0; ; attempt++) {
    const reply = await buyer.call('POST', `/api/v1/code-pools/${poolId}/grab`);
    if (reply.status !== 503 || attempt >= busyRetriesMax) return reply;
    busyAnswers++;
    await sleep(20 + Math.random() * 80);
  }
}

it(`${buyersCount} buyers on ${codesCount} codes: ${codesCount} distinct codes, one each, the rest SOLD_OUT`, async () => {
  const started = performance.now();
  const latencies: number[] = [];
  const replies = await Promise.all(buyers.map(async (buyer) => {
    const t0 = performance.now();
    const reply = await grab(buyer);
    latencies.push(performance.now() - t0);
    return { buyer: buyer.username, reply };
  }));
  const seconds = (performance.now() - started) / 1000;
  const winners = replies.filter((r) => r.reply.status === 201);
  const losers = replies.filter((r) => r.reply.status === 409 && r.reply.body.code === 'SOLD_OUT');
  const other = replies.filter((r) => r.reply.status !== 201 && !(r.reply.status === 409 && r.reply.body.code === 'SOLD_OUT'));
  console.log(`code-pool rush: ${winners.length} won, ${losers.length} SOLD_OUT, ${other.length} other, ${busyAnswers} busy retries in ${seconds.toFixed(2)} s;`,
    `latency ms ${JSON.stringify(percentiles(latencies))}`);
  expect(other.map((r) => r.reply)).toEqual([]);
  expect(winners).toHaveLength(codesCount);
  expect(losers).toHaveLength(buyersCount - codesCount);
  const codes = winners.map((w) => w.reply.body.code as string);
  expect(new Set(codes).size).toBe(codesCount);

  // The store agrees: 0 left, and the winners export lists each code once, each to its buyer.
  const admin = await adminClient(t.node.app);
  expect((await admin.request('GET', `/api/v1/code-pools/${poolId}`)).body).toMatchObject({ remaining: 0, imported: codesCount });
  const csv = ((await admin.request('GET', `/api/v1/admin/code-pools/${poolId}/winners.csv`)).body as string).slice(1).trimEnd().split('\r\n').slice(1);
  const exported = new Map(csv.map((line) => { const [username, code] = line.split(','); return [code as string, username as string]; }));
  expect(exported.size).toBe(codesCount);
  for (const w of winners) expect(exported.get(w.reply.body.code)).toBe(w.buyer);
  // A winner asking again gets the same code (200); a loser is still SOLD_OUT.
  const first = winners[0]!;
  const again = await grab(buyers.find((b) => b.username === first.buyer)!);
  expect([again.status, again.body.code]).toEqual([200, first.reply.body.code]);
}, 120_000);

it('one buyer grabbing 50 times at once holds one code', async () => {
  const admin = await adminClient(t.node.app);
  const now = Date.now();
  const pool = (await admin.request('POST', '/api/v1/admin/code-pools', {
    title: 'Greedy', saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
  })).body.poolId as string;
  await admin.request('POST', `/api/v1/admin/code-pools/${pool}/codes`, { codes: Array.from({ length: 100 }, (_, i) => `G${i}`) });
  const [greedy] = await crowd(t, 1, 'greedy');
  const replies = await Promise.all(Array.from({ length: 50 }, async () => {
    for (let attempt = 0; ; attempt++) {
      const reply = await greedy!.call('POST', `/api/v1/code-pools/${pool}/grab`);
      if (reply.status !== 503 || attempt >= busyRetriesMax) return reply;
      await sleep(20 + Math.random() * 80);
    }
  }));
  expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
  expect(replies.filter((r) => r.status === 200)).toHaveLength(49);
  expect(new Set(replies.map((r) => r.body.code)).size).toBe(1);
  expect((await admin.request('GET', `/api/v1/code-pools/${pool}`)).body).toMatchObject({ remaining: 99 });
}, 60_000);
