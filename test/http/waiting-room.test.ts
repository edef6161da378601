import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockQueuePlaces } from '../../src/app/waiting-rooms.js';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testOnPostgres, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { eventually, sleep } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_ADMIT_SWEEP_MS: '100' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const buyer = async () => new ApiClient(t.node.app).signUp(`queuer${++seq}`);
const room = (activityId: string, body: unknown) => admin.request('PUT', `/api/v1/admin/activities/${activityId}/waiting-room`, body);
const on = (activityId: string, admitPerMinute = 600, admissionSeconds = 600) => room(activityId, { enabled: true, admitPerMinute, admissionSeconds });
const join = (api: ApiClient, activityId: string) => api.request('POST', `/api/v1/activities/${activityId}/queue`);
const place = (api: ApiClient, activityId: string, queueId: string) => api.request('GET', `/api/v1/activities/${activityId}/queue/${queueId}`);
const hold = (api: ApiClient, showId: string, seatIds: string[], token?: string) =>
  api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds }, token === undefined ? {} : { 'x-admission-token': token });

async function admitted(api: ApiClient, activityId: string, queueId: string): Promise<{ admissionToken: string; admittedUntil: string }> {
  return eventually(async () => {
    const r = await place(api, activityId, queueId);
    return r.body.state === 'ADMITTED' ? r.body : undefined;
  }, 10_000, 'admission');
}

describe('waiting room', () => {
  it('turns on per activity; a buyer joins once (201 then 200, the same place), is admitted at the set rate, and holds and orders only with their token', async () => {
    const showId = await createShow(admin);
    const set = await on(showId, 600, 600);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ activityId: showId, enabled: true, admitPerMinute: 600, admissionSeconds: 600, queueLength: 0 });

    const alice = await buyer();
    // The room is on: without a token nothing is held.
    const bare = await hold(alice, showId, ['A-1-1']);
    expect({ status: bare.status, code: bare.body.code }).toEqual({ status: 403, code: 'ADMISSION_REQUIRED' });

    const first = await join(alice, showId);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ activityId: showId, state: 'WAITING', position: 1 });
    expect(typeof first.body.estimatedWaitSeconds).toBe('number');
    const again = await join(alice, showId);
    expect({ status: again.status, queueId: again.body.queueId }).toEqual({ status: 200, queueId: first.body.queueId });

    const { admissionToken, admittedUntil } = await admitted(alice, showId, first.body.queueId);
    expect(Date.parse(admittedUntil)).toBeGreaterThan(Date.now() + 500_000);
    const held = await hold(alice, showId, ['A-1-1'], admissionToken);
    expect(held.status).toBe(201);
    const ordered = await alice.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `o${++seq}` });
    expect({ status: ordered.status, code: ordered.body.code }).toEqual({ status: 403, code: 'ADMISSION_REQUIRED' });
    const ordered2 = await alice.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `o${++seq}`, 'x-admission-token': admissionToken });
    expect(ordered2.status).toBe(201);

    // The organizer's live view counts the admission.
    const live = await admin.request('GET', `/api/v1/admin/activities/${showId}/waiting-room`);
    expect(live.body).toMatchObject({ enabled: true, admittedNow: 1, admittedLastMinute: 1, queueLength: 0 });
  });

  it('admits nobody once the sale has ended, and takes no new place then (422 SALE_NOT_OPEN) (issue 33)', async () => {
    const showId = await createShow(admin, { saleOpensInMs: -10 * 60_000, saleClosesInMs: 1_500 });
    await on(showId, 0, 600);
    const alice = await buyer();
    const joined = await join(alice, showId);
    expect(joined.status).toBe(201);
    await sleep(1_600);
    const late = await join(await buyer(), showId);
    expect({ status: late.status, code: late.body.code }).toEqual({ status: 422, code: 'SALE_NOT_OPEN' });
    await on(showId, 6_000, 600);
    // Passes every 100 ms at 100 a second: any admission would have happened by now.
    await sleep(800);
    expect((await place(alice, showId, joined.body.queueId)).body.state).toBe('WAITING');
    await room(showId, { enabled: false, admitPerMinute: 600, admissionSeconds: 600 });
  });

  it('ends the token of a buyer who leaves the line (403 ADMISSION_INVALID, nothing held); joining again and being admitted again gives a token that buys (issue 33)', async () => {
    const showId = await createShow(admin);
    await on(showId);
    const alice = await buyer();
    const joined = await join(alice, showId);
    const { admissionToken } = await admitted(alice, showId, joined.body.queueId);
    expect((await alice.request('DELETE', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`)).status).toBe(200);
    const stale = await hold(alice, showId, ['A-1-1'], admissionToken);
    expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 403, code: 'ADMISSION_INVALID' });
    expect((await alice.request('GET', '/api/v1/me/holds')).body.holds).toEqual([]);
    const again = await join(alice, showId);
    expect(again.body.queueId).toBe(joined.body.queueId);
    const fresh = await admitted(alice, showId, again.body.queueId);
    expect(fresh.admissionToken).not.toBe(admissionToken);
    expect((await hold(alice, showId, ['A-1-1'], fresh.admissionToken)).status).toBe(201);
    expect((await hold(alice, showId, ['A-1-2'], admissionToken)).body.code).toBe('ADMISSION_INVALID');
    // Off again: a room left on would lengthen every later admitter pass of this file.
    await room(showId, { enabled: false, admitPerMinute: 600, admissionSeconds: 600 });
  });

  it('refuses another user\'s token, another activity\'s, a forged one, an oversized one, and an expired one with 403 ADMISSION_INVALID', async () => {
    const showA = await createShow(admin);
    const showB = await createShow(admin);
    await on(showA);
    await on(showB);
    const alice = await buyer();
    const bob = await buyer();
    const a = await join(alice, showA);
    const { admissionToken } = await admitted(alice, showA, a.body.queueId);
    const invalid = async (api: ApiClient, showId: string, token: string) => {
      const r = await hold(api, showId, ['A-2-1'], token);
      return { status: r.status, code: r.body.code };
    };
    const refused = { status: 403, code: 'ADMISSION_INVALID' };
    expect(await invalid(bob, showA, admissionToken)).toEqual(refused);
    expect(await invalid(alice, showB, admissionToken)).toEqual(refused);
    const [v, body, sig] = admissionToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as { u: string; a: string; e: number };
    const forgedBody = Buffer.from(JSON.stringify({ ...claims, e: claims.e + 3_600_000 })).toString('base64url');
    expect(await invalid(alice, showA, `${v}.${forgedBody}.${sig}`)).toEqual(refused);
    expect(await invalid(alice, showA, 'not-a-token')).toEqual(refused);
    expect(await invalid(alice, showA, `${admissionToken}${'x'.repeat(2100)}`)).toEqual(refused);
    // Expired: a token whose window has passed, signed with the server's own key.
    const expired = t.node.ctx.admission.issue({ userId: claims.u, activityId: showA, expiresAt: Date.now() - 1 });
    expect(await invalid(alice, showA, expired)).toEqual(refused);
    // The genuine token still works.
    expect((await hold(alice, showA, ['A-2-1'], admissionToken)).status).toBe(201);
  });

  it('validates settings (400 outside bounds, 404 unknown activity, 403 for a buyer) and answers 409 WAITING_ROOM_OFF when off', async () => {
    const showId = await createShow(admin);
    for (const bad of [
      { enabled: true, admitPerMinute: -1, admissionSeconds: 600 },
      { enabled: true, admitPerMinute: 60_001, admissionSeconds: 600 },
      { enabled: true, admitPerMinute: 10, admissionSeconds: 29 },
      { enabled: true, admitPerMinute: 10, admissionSeconds: 3601 },
      { enabled: true, admitPerMinute: 1.5, admissionSeconds: 600 },
      { enabled: 'yes', admitPerMinute: 10, admissionSeconds: 600 },
      { enabled: true, admitPerMinute: 10 },
      { enabled: true, admitPerMinute: 10, admissionSeconds: 600, extra: 1 },
    ]) {
      const r = await room(showId, bad);
      expect({ bad, status: r.status, code: r.body.code }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await room('no-such-activity', { enabled: true, admitPerMinute: 1, admissionSeconds: 60 })).body.code).toBe('ACTIVITY_NOT_FOUND');
    const alice = await buyer();
    expect((await alice.request('PUT', `/api/v1/admin/activities/${showId}/waiting-room`, { enabled: true, admitPerMinute: 1, admissionSeconds: 60 })).status).toBe(403);
    const off = await join(alice, showId);
    expect({ status: off.status, code: off.body.code }).toEqual({ status: 409, code: 'WAITING_ROOM_OFF' });
    // Off: holds need nothing.
    expect((await hold(alice, showId, ['A-3-1'])).status).toBe(201);
    // A bad queue id is 400; an unknown one 404.
    expect((await place(alice, showId, 'bad id!')).status).toBe(400);
    expect((await place(alice, showId, 'que_nothing')).body.code).toBe('QUEUE_ENTRY_NOT_FOUND');
  });

  it('answers another user\'s queue id 404, leaves with DELETE, pauses at 0 per minute and resumes live', async () => {
    const showId = await createShow(admin);
    await on(showId, 0, 600);
    const alice = await buyer();
    const bob = await buyer();
    const a = await join(alice, showId);
    const b = await join(bob, showId);
    expect(b.body.position).toBe(2);
    expect(a.body.estimatedWaitSeconds).toBeNull();
    expect((await place(bob, showId, a.body.queueId)).status).toBe(404);
    expect((await bob.request('DELETE', `/api/v1/activities/${showId}/queue/${a.body.queueId}`)).status).toBe(404);
    // Paused: nobody is admitted.
    await new Promise((r) => setTimeout(r, 400));
    expect((await place(alice, showId, a.body.queueId)).body.state).toBe('WAITING');
    // The admitter's pass sets the waiting-room length gauge (issue 26 item 1): at least these two wait.
    await eventually(async () => {
      const text = (await t.node.app.inject({ method: 'GET', url: '/metrics' })).body;
      const length = Number(/^ticketrush_waiting_room_length (\S+)$/m.exec(text)?.[1] ?? 'NaN');
      return length >= 2 ? length : undefined;
    }, 5_000, 'the waiting-room length gauge');
    const left = await alice.request('DELETE', `/api/v1/activities/${showId}/queue/${a.body.queueId}`);
    expect(left.body).toMatchObject({ state: 'LEFT', position: 0 });
    expect((await place(bob, showId, b.body.queueId)).body.position).toBe(1);
    await on(showId, 600, 600);
    await admitted(bob, showId, b.body.queueId);
    // Joining again after leaving: the back of the line, the same place id.
    const back = await join(alice, showId);
    expect({ status: back.status, queueId: back.body.queueId }).toEqual({ status: 201, queueId: a.body.queueId });
  });

  it('refuses joiners of a sold-out activity with 409 SOLD_OUT from the read model', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Tiny', rows: 1, seatsPerRow: 1, priceCents: 100 }] });
    const alice = await buyer();
    expect((await hold(alice, showId, ['A-1-1'])).status).toBe(201);
    await on(showId);
    const bob = await buyer();
    const r = await join(bob, showId);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'SOLD_OUT' });
  });

  it('gives 200 users joining at once over real sockets 200 distinct places, and one user joining 20 times one place', async () => {
    const showId = await createShow(admin);
    await on(showId, 0, 600);
    const buyers = await crowd(t, 200, `crowd${++seq}`);
    const replies = await Promise.all(buyers.map((b) => b.call('POST', `/api/v1/activities/${showId}/queue`)));
    expect(replies.map((r) => r.status).every((s) => s === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.body.queueId)).size).toBe(200);
    const positions = await Promise.all(buyers.map((b, i) => b.call('GET', `/api/v1/activities/${showId}/queue/${replies[i]?.body.queueId}`)));
    expect(positions.map((r) => r.body.position).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const one = await new HttpBuyer(t.baseUrl, `twice${++seq}`).signUp();
    const same = await Promise.all(Array.from({ length: 20 }, () => one.call('POST', `/api/v1/activities/${showId}/queue`)));
    expect(new Set(same.map((r) => r.body.queueId)).size).toBe(1);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expect(same.filter((r) => r.status === 200)).toHaveLength(19);
  });

  it('admits at the set rate: 1200 per minute lets about 20 a second in, in line order, and no more', async () => {
    const showId = await createShow(admin);
    await on(showId, 0, 600);
    const crowdOf = await crowd(t, 80, `rate${++seq}`);
    for (const b of crowdOf) await b.call('POST', `/api/v1/activities/${showId}/queue`);
    await on(showId, 1_200, 600);
    const started = Date.now();
    await sleep(2_000);
    const stats = (await admin.request('GET', `/api/v1/admin/activities/${showId}/waiting-room`)).body as { admittedLastMinute: number; queueLength: number };
    const elapsedS = (Date.now() - started) / 1000;
    // The set rate over the time elapsed, within a pass or two either way (passes every 100 ms; the first one only starts the clock).
    expect(stats.admittedLastMinute).toBeGreaterThanOrEqual(Math.floor(20 * (elapsedS - 0.5)));
    expect(stats.admittedLastMinute).toBeLessThanOrEqual(Math.ceil(20 * elapsedS) + 2);
    expect(stats.queueLength).toBe(80 - stats.admittedLastMinute);
    console.log(`admitted ${stats.admittedLastMinute} in ${elapsedS.toFixed(2)} s at 1200/min (expected ${(20 * elapsedS).toFixed(1)})`);
  });

  it('streams the place as server-sent events, one stream per place, ending when the place ends', async () => {
    const showId = await createShow(admin);
    await on(showId, 0, 600);
    const alice = await new HttpBuyer(t.baseUrl, `streamer${++seq}`).signUp();
    const joined = await alice.call('POST', `/api/v1/activities/${showId}/queue`);
    const url = `${t.baseUrl}/api/v1/activities/${showId}/queue/${joined.body.queueId}/events`;
    const token = (alice as unknown as { token: string }).token;
    const first = openStream(url, token);
    await eventually(async () => (first.text().includes('event: place') ? true : undefined), 3_000, 'first event');
    expect(JSON.parse(/data: (.*)/.exec(first.text())?.[1] ?? '{}')).toMatchObject({ state: 'WAITING', position: 1 });
    // A second stream of the same place closes the first.
    const second = openStream(url, token);
    await eventually(async () => (first.ended() ? true : undefined), 3_000, 'first stream closed');
    // Admitted: the event carries the token; leaving ends the stream.
    await on(showId, 600, 600);
    await eventually(async () => (second.text().includes('"ADMITTED"') ? true : undefined), 10_000, 'admitted event');
    expect(second.text()).toContain('admissionToken');
    await alice.call('DELETE', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`);
    await eventually(async () => (second.ended() ? true : undefined), 5_000, 'stream ended on LEFT');
    expect(second.text()).toContain('"LEFT"');
    // Another user's place: 404, no stream.
    const bob = await new HttpBuyer(t.baseUrl, `peeker${++seq}`).signUp();
    expect((await bob.call('GET', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`)).status).toBe(404);
  });

  it('blockQueuePlaces (for the blocklist) moves a user\'s waiting and admitted places to BLOCKED; they cannot rejoin', async () => {
    const show1 = await createShow(admin);
    const show2 = await createShow(admin);
    await on(show1, 600, 600);
    await on(show2, 0, 600);
    const alice = await buyer();
    const a1 = await join(alice, show1);
    const a2 = await join(alice, show2);
    await admitted(alice, show1, a1.body.queueId);
    const me = (await alice.request('GET', '/api/v1/me')).body as { userId: string };
    expect(await blockQueuePlaces(t.node.ctx, me.userId)).toBe(2);
    expect((await place(alice, show1, a1.body.queueId)).body).toMatchObject({ state: 'BLOCKED', position: 0 });
    expect((await place(alice, show1, a1.body.queueId)).body.admissionToken).toBeUndefined();
    expect((await place(alice, show2, a2.body.queueId)).body.state).toBe('BLOCKED');
    expect((await join(alice, show2)).body).toMatchObject({ queueId: a2.body.queueId, state: 'BLOCKED' });
  });

  it('a blocklist entry for a buyer (POST /admin/blocklist) turns their queue place BLOCKED', async () => {
    const showId = await createShow(admin);
    await on(showId, 0, 600);
    const name = `blockme${++seq}`;
    const alice = await new ApiClient(t.node.app).signUp(name);
    const a = await join(alice, showId);
    const blocked = await admin.request('POST', '/api/v1/admin/blocklist', { username: name, reason: 'scalping bot' });
    expect(blocked.status).toBe(201);
    await eventually(async () => ((await place(alice, showId, a.body.queueId)).body.state === 'BLOCKED' ? true : undefined), 5_000, 'place blocked');
  });

  it('shuffles those who join before the sale opens: their places are not their join order', async () => {
    const showId = await createShow(admin, { saleOpensInMs: 60_000 });
    await on(showId, 600, 600);
    const crowdOf = await crowd(t, 60, `early${++seq}`);
    const places: string[] = [];
    // One after another: join order is known exactly.
    for (const b of crowdOf) places.push((await b.call('POST', `/api/v1/activities/${showId}/queue`)).body.queueId as string);
    const positions = await Promise.all(crowdOf.map(async (b, i) => (await b.call('GET', `/api/v1/activities/${showId}/queue/${places[i]}`)).body.position as number));
    expect([...positions].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // Spearman's rho of join order against position: a shuffle is near 0 (sd ~0.13 for 60); join order would be 1.
    const d2 = positions.reduce((sum, p, i) => sum + (p - 1 - i) ** 2, 0);
    expect(Math.abs(1 - (6 * d2) / (60 * (60 * 60 - 1)))).toBeLessThan(0.6);
    // Before the opening nobody is admitted, whatever the rate.
    await sleep(400);
    expect((await crowdOf[0]?.call('GET', `/api/v1/activities/${showId}/queue/${places[0]}`))?.body.state).toBe('WAITING');
  });
});

/** A server-sent event stream over a real socket, with a bearer token: its text so far, and whether the server ended it. */
function openStream(url: string, token: string): { text: () => string; ended: () => boolean; close: () => void } {
  let body = '';
  let done = false;
  const req = httpRequest(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      body += chunk;
    });
    res.on('end', () => {
      done = true;
    });
    res.on('close', () => {
      done = true;
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { text: () => body, ended: () => done, close: () => req.destroy() };
}

/** Two processes over one PostgreSQL schema: the room's state reaches the other's cache through the outbox feed. */
describe.runIf(testOnPostgres)('waiting room across two processes', () => {
  let b: Node;
  let bUrl: string;
  let bDir: string;
  beforeAll(async () => {
    bDir = mkdtempSync(joinPath(tmpdir(), 'ticketrush-room-'));
    b = await composeNode(loadConfig({ PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', ...t.database.env, TICKETRUSH_DATA_DIR: bDir }), { logger: false });
    bUrl = await b.listen();
  });
  afterAll(async () => {
    await b?.stop();
    if (bDir !== undefined) rmSync(bDir, { recursive: true, force: true });
  });

  it('a room turned on through A is enforced by B within a second, B accepts A\'s tokens, and turning it off frees B', async () => {
    const showId = await createShow(admin);
    const alice = await new HttpBuyer(bUrl, `twoproc${++seq}`).signUp();
    const holdOnB = (seat: string, token?: string) => alice.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seat] }, token === undefined ? {} : { 'x-admission-token': token });
    await on(showId, 600, 600);
    const started = Date.now();
    await eventually(async () => ((await holdOnB('A-9-1')).body.code === 'ADMISSION_REQUIRED' ? true : undefined), 2_000, 'B enforces the room');
    expect(Date.now() - started).toBeLessThan(1_500);
    const joined = await alice.call('POST', `/api/v1/activities/${showId}/queue`);
    const token = await eventually(async () => {
      const r = await alice.call('GET', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`);
      return r.body.state === 'ADMITTED' ? (r.body.admissionToken as string) : undefined;
    }, 10_000, 'admission');
    expect((await holdOnB('A-9-2', token)).status).toBe(201);
    await room(showId, { enabled: false, admitPerMinute: 600, admissionSeconds: 600 });
    await eventually(async () => ((await holdOnB('A-9-3')).status === 201 ? true : undefined), 2_000, 'B lets holds through again');
  });

  it('a buyer who leaves the line on A has their token refused by B within a second, with no store read per request (issue 33)', async () => {
    const showId = await createShow(admin);
    const alice = await new HttpBuyer(bUrl, `twoleft${++seq}`).signUp();
    const holdOnB = (seat: string, token: string) => alice.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seat] }, { 'x-admission-token': token });
    await on(showId, 600, 600);
    // B hears of the room through the change feed first.
    const joined = await eventually(async () => {
      const r = await alice.call('POST', `/api/v1/activities/${showId}/queue`);
      return r.status === 201 ? r : undefined;
    }, 2_000, 'B knows the room');
    const token = await eventually(async () => {
      const r = await alice.call('GET', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`);
      return r.body.state === 'ADMITTED' ? (r.body.admissionToken as string) : undefined;
    }, 10_000, 'admission');
    expect((await holdOnB('A-8-1', token)).status).toBe(201);
    // Left through A (the in-process app): B hears it from the change feed.
    const aliceOnA = await new ApiClient(t.node.app).logIn(alice.username, 'password-123');
    expect((await aliceOnA.request('DELETE', `/api/v1/activities/${showId}/queue/${joined.body.queueId}`)).status).toBe(200);
    const started = Date.now();
    await eventually(async () => ((await holdOnB('A-8-2', token)).body.code === 'ADMISSION_INVALID' ? true : undefined), 2_000, 'B ends the token');
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
