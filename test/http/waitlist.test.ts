import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testOnPostgres, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';
import { offerFreed } from '../../src/app/waitlist.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const buyer = async () => new ApiClient(t.node.app).signUp(`wait${++seq}`);
const smallShow = (seats: number) => createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: seats, priceCents: 5000 }] });
const entryOf = async (api: ApiClient, showId: string) => ((await api.request('GET', '/api/v1/me/waitlist')).body.entries as { showId: string; status: string; holdId: string | null; claimUntil: string | null }[]).find((e) => e.showId === showId);

describe('waitlist (候补)', () => {
  it('joins once per show, refuses bad input with stable codes, leaves, and lists my entries', async () => {
    const showId = await smallShow(2);
    const bob = await buyer();
    // Nothing is free only when it is sold out: hold both seats first.
    const alice = await buyer();
    expect((await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] })).status).toBe(201);
    const joined = await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({ showId, quantity: 1, sectionId: null, status: 'WAITING', holdId: null, claimUntil: null });
    const twice = await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 2 });
    expect({ status: twice.status, code: twice.body.code }).toEqual({ status: 409, code: 'WAITLIST_ALREADY_JOINED' });
    expect((await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 0 })).status).toBe(400);
    expect((await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 11 })).status).toBe(400);
    expect((await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1, extra: true })).status).toBe(400);
    const carol = await buyer();
    const badSection = await carol.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1, section: 'Z' });
    expect({ status: badSection.status, code: badSection.body.code }).toEqual({ status: 422, code: 'INVALID_WAITLIST_REQUEST' });
    const unknown = await carol.request('POST', '/api/v1/shows/shw_nope/waitlist', { quantity: 1 });
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 404, code: 'SHOW_NOT_FOUND' });
    expect((await new ApiClient(t.node.app).request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).status).toBe(401);
    const left = await bob.request('DELETE', `/api/v1/shows/${showId}/waitlist`);
    expect(left.body).toMatchObject({ status: 'LEFT' });
    const again = await bob.request('DELETE', `/api/v1/shows/${showId}/waitlist`);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: 'WAITLIST_NOT_FOUND' });
    expect((await bob.request('GET', '/api/v1/me/waitlist')).body.entries.map((e: { status: string }) => e.status)).toEqual(['LEFT']);
  });

  it('a released seat goes to the first in line in the release itself (the public never sees it free); paid: CLAIMED; released by the offered buyer: LAPSED and the next gets it', async () => {
    const showId = await smallShow(2);
    const alice = await buyer();
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
    const [bob, erin, carol] = [await buyer(), await buyer(), await buyer()];
    expect((await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).status).toBe(201);
    expect((await erin.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1, section: 'A' })).status).toBe(201);
    // Alice gives back both seats: Bob and Erin are offered one each in the same transaction.
    expect((await alice.request('DELETE', `/api/v1/holds/${hold.body.holdId}`)).status).toBe(200);
    const bobs = await entryOf(bob, showId);
    expect(bobs).toMatchObject({ status: 'OFFERED' });
    expect(Date.parse(bobs?.claimUntil ?? '') - Date.now()).toBeGreaterThan(14 * 60_000);
    expect((await entryOf(erin, showId))?.status).toBe('OFFERED');
    // The public finds them taken.
    const grab = await carol.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect({ status: grab.status, code: grab.body.code }).toEqual({ status: 409, code: 'SEAT_UNAVAILABLE' });
    // Bob's offer is an ordinary hold of his: he pays it through the usual checkout.
    const mine = (await bob.request('GET', '/api/v1/me/holds')).body.holds as { holdId: string }[];
    expect(mine.map((h) => h.holdId)).toEqual([bobs?.holdId]);
    const order = await bob.request('POST', '/api/v1/orders', { holdId: bobs?.holdId }, { 'x-idempotency-key': `w-${++seq}` });
    expect(order.status).toBe(201);
    const paid = await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.body.paymentId, orderId: order.body.orderId, status: 'SUCCEEDED', amountCents: 5000 });
    expect(paid.body.outcome).toBe('SOLD');
    await eventually(async () => ((await entryOf(bob, showId))?.status === 'CLAIMED' ? true : undefined), 5_000, 'bob CLAIMED');
    // Erin lets hers go; Carol (now waiting) gets it in the same step, and Erin's entry lapses.
    expect((await carol.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).status).toBe(201);
    const erinHold = (await entryOf(erin, showId))?.holdId;
    expect((await erin.request('DELETE', `/api/v1/holds/${erinHold}`)).status).toBe(200);
    expect((await entryOf(carol, showId))?.status).toBe('OFFERED');
    await eventually(async () => ((await entryOf(erin, showId))?.status === 'LAPSED' ? true : undefined), 5_000, 'erin LAPSED');
    // A seat already free when someone joins is offered at once.
    const free = await smallShow(1);
    const dave = await buyer();
    const now = await dave.request('POST', `/api/v1/shows/${free}/waitlist`, { quantity: 1 });
    expect(now.body).toMatchObject({ status: 'OFFERED' });
  });

  it('seats freed by another process reach the line through the outbox relay (the waitlist sink)', async () => {
    const showId = await smallShow(1);
    const alice = await buyer();
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const bob = await buyer();
    await bob.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 });
    // A lapse without the waitlist terms, as a process of another kind (or a refund) would free seats.
    const stored = await t.node.ctx.store.getHold(hold.body.holdId);
    const lapsed = await t.node.ctx.store.lapseHold({ holdId: hold.body.holdId, event: 'RELEASE', expectedExpiresAt: stored?.expiresAt ?? 0, now: Date.now() });
    expect(lapsed.ok).toBe(true);
    await eventually(async () => ((await entryOf(bob, showId))?.status === 'OFFERED' ? true : undefined), 5_000, 'offered by the relay');
  });

  it.runIf(testOnPostgres)('a waitlist offer racing buyers for the same seat over real sockets: exactly one gets it, never both', async () => {
    const tally = { buyer: 0, waitlist: 0 };
    for (let round = 0; round < 6; round++) {
      const showId = await smallShow(1);
      const [holder, waiting, ...racers] = await crowd(t, 6, `wrace${round}-`);
      if (holder === undefined || waiting === undefined) throw new Error('crowd');
      const hold = await holder.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
      expect(hold.status).toBe(201);
      expect((await waiting.call('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).status).toBe(201);
      // The seat is freed by a lapse that does not offer (as a refund or another process would), then
      // the offer (what the relay's sink runs) and four buyers over real sockets go for it at once.
      const stored = await t.node.ctx.store.getHold(hold.body.holdId);
      await t.node.ctx.store.lapseHold({ holdId: hold.body.holdId, event: 'RELEASE', expectedExpiresAt: stored?.expiresAt ?? 0, now: Date.now() });
      const [offers, ...grabs] = await Promise.all([
        offerFreed(t.node.ctx, showId),
        // Staggered by round so that either side sometimes gets there first.
        ...racers.map((r) => new Promise((resolve) => setTimeout(resolve, [0, 5, 10, 20, 40, 80][round])).then(() => r.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] }))),
      ]);
      const won = grabs.filter((g) => g.status === 201).length;
      for (const g of grabs) expect([201, 409]).toContain(g.status);
      const entry = ((await waiting.call('GET', '/api/v1/me/waitlist')).body.entries as { status: string }[])[0];
      expect(won + offers.length).toBe(1);
      expect(entry?.status).toBe(offers.length === 1 ? 'OFFERED' : 'WAITING');
      const audit = await t.node.ctx.store.audit(showId);
      expect(audit?.userUnits.reduce((n, u) => n + u.units, 0)).toBe(1);
      tally.buyer += won;
      tally.waitlist += offers.length;
    }
    // Reported, not asserted: who wins is up to the scheduler.
    console.info(`waitlist race: buyer won ${tally.buyer}, waitlist won ${tally.waitlist} of 6 rounds`);
  });
});
