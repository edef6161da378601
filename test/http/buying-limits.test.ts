import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeNode } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { startTestNode, testStore, type TestNode } from '../support/backend.js';

/**
 * Issue 24 item 3: every buying route is limited per user and per address (429 RATE_LIMITED with
 * Retry-After), by name; X-Forwarded-For is believed only from TICKETRUSH_TRUST_PROXY. Small
 * limits here so the tests stay quick.
 */
let t: TestNode;
let showId: string;
let admin: ApiClient;
const tokens = new Map<string, string>();

beforeAll(async () => {
  t = await startTestNode({
    listen: false,
    env: {
      TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '3',
      TICKETRUSH_RATE_LIMIT_HOLD_PER_IP_PER_MINUTE: '5',
      TICKETRUSH_RATE_LIMIT_ORDER_PER_USER_PER_MINUTE: '2',
      TICKETRUSH_RATE_LIMIT_GRAB_PER_USER_PER_MINUTE: '1',
    },
  });
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 20, seatsPerRow: 20, priceCents: 100 }], maxSeatsPerUser: 50 });
});
afterAll(async () => t.close());

let ipSeq = 0;
const newIp = () => `10.9.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;
let seatSeq = 0;
const nextSeat = () => { seatSeq++; return `A-${Math.floor(seatSeq / 20) + 1}-${(seatSeq % 20) + 1}`; };

async function buyer(name: string): Promise<string> {
  const known = tokens.get(name);
  if (known !== undefined) return known;
  await t.node.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { username: name, password: 'password-123' }, remoteAddress: newIp() });
  const login = await t.node.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: name, password: 'password-123' }, remoteAddress: newIp() });
  const token = (login.json() as { token: string }).token;
  tokens.set(name, token);
  return token;
}

async function hold(name: string, ip: string, headers: Record<string, string> = {}) {
  const response = await t.node.app.inject({
    method: 'POST', url: `/api/v1/shows/${showId}/holds`, payload: { seatIds: [nextSeat()] }, remoteAddress: ip,
    headers: { authorization: `Bearer ${await buyer(name)}`, ...headers },
  });
  return { status: response.statusCode, code: (response.json() as { code?: string }).code, retryAfter: response.headers['retry-after'] };
}

describe('buying limits', () => {
  it('refuses a user past the per-user limit with 429 RATE_LIMITED and Retry-After, whatever address they come from', async () => {
    for (let i = 0; i < 3; i++) expect((await hold('limited-1', newIp())).status).toBe(201);
    const refused = await hold('limited-1', newIp());
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    // Keyed by user: another buyer is not touched by it.
    expect((await hold('limited-2', newIp())).status).toBe(201);
  });

  it('refuses an address past the per-address limit, whichever users it sends', async () => {
    const ip = newIp();
    for (let i = 0; i < 5; i++) expect((await hold(`crowd-${i}`, ip)).status).toBe(201);
    expect((await hold('crowd-5', ip)).code).toBe('RATE_LIMITED');
    expect((await hold('crowd-5', newIp())).status).toBe(201);
  });

  it('does not believe X-Forwarded-For by default: a forged header dodges nothing', async () => {
    const ip = newIp();
    for (let i = 0; i < 5; i++) expect((await hold(`forger-${i}`, ip, { 'x-forwarded-for': newIp() })).status).toBe(201);
    expect((await hold('forger-5', ip, { 'x-forwarded-for': newIp() })).code).toBe('RATE_LIMITED');
  });

  it('limits each route by its own name: orders and grabs have their own counts', async () => {
    const token = await buyer('orders-1');
    const order = async () => (await t.node.app.inject({ method: 'POST', url: '/api/v1/orders', payload: { holdId: 'hld_none' }, remoteAddress: newIp(), headers: { authorization: `Bearer ${token}`, 'x-idempotency-key': `k-${Math.random()}` } })).json() as { code: string };
    expect((await order()).code).toBe('HOLD_NOT_FOUND');
    expect((await order()).code).toBe('HOLD_NOT_FOUND');
    expect((await order()).code).toBe('RATE_LIMITED');
    const grab = async () => (await t.node.app.inject({ method: 'POST', url: '/api/v1/code-pools/cpl_none/grab', remoteAddress: newIp(), headers: { authorization: `Bearer ${token}` } })).json() as { code: string };
    expect((await grab()).code).toBe('CODE_POOL_NOT_FOUND');
    expect((await grab()).code).toBe('RATE_LIMITED');
    // Reads are not buying routes.
    expect((await t.node.app.inject({ method: 'GET', url: `/api/v1/shows/${showId}`, remoteAddress: newIp() })).statusCode).toBe(200);
  });
});

describe('TICKETRUSH_TRUST_PROXY', () => {
  it('believes X-Forwarded-For only from a listed proxy', async () => {
    const behind = await startTestNode({ listen: false, env: { TICKETRUSH_TRUST_PROXY: '10.200.0.0/16', TICKETRUSH_RATE_LIMIT_HOLD_PER_IP_PER_MINUTE: '2' } });
    try {
      const a = await adminClient(behind.node.app);
      const show = await createShow(a, { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 10, priceCents: 100 }], maxSeatsPerUser: 10 });
      const users = await Promise.all(['proxied-1', 'proxied-2', 'proxied-3', 'proxied-4'].map(async (name) => {
        await behind.node.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { username: name, password: 'password-123' } });
        return ((await behind.node.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: name, password: 'password-123' } })).json() as { token: string }).token;
      }));
      let seat = 0;
      const viaProxy = async (token: string, proxy: string, client: string) => (await behind.node.app.inject({
        method: 'POST', url: `/api/v1/shows/${show}/holds`, payload: { seatIds: [`A-1-${++seat}`] }, remoteAddress: proxy,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
      })).statusCode;
      // Through the trusted proxy, each client is counted on its own address.
      expect([await viaProxy(users[0]!, '10.200.0.1', '198.51.100.1'), await viaProxy(users[1]!, '10.200.0.1', '198.51.100.2'), await viaProxy(users[2]!, '10.200.0.1', '198.51.100.3')]).toEqual([201, 201, 201]);
      // From an address that is not a listed proxy the header is ignored: the socket's address is counted.
      expect([await viaProxy(users[0]!, '192.0.2.7', '198.51.100.4'), await viaProxy(users[1]!, '192.0.2.7', '198.51.100.5'), await viaProxy(users[3]!, '192.0.2.7', '198.51.100.6')]).toEqual([201, 201, 429]);
    } finally {
      await behind.close();
    }
  });

  it('refuses a malformed list at start, naming the variable', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ TICKETRUSH_DATA_DIR: t.dataDir, TICKETRUSH_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TICKETRUSH_TRUST_PROXY/);
    expect(() => loadConfig({ TICKETRUSH_DATA_DIR: t.dataDir, TICKETRUSH_TRUST_PROXY: 'proxy.example' })).toThrow(/TICKETRUSH_TRUST_PROXY/);
    expect(loadConfig({ TICKETRUSH_DATA_DIR: t.dataDir, TICKETRUSH_TRUST_PROXY: '10.0.0.1, fd00::/8' }).trustProxy).toEqual(['10.0.0.1', 'fd00::/8']);
    expect(() => loadConfig({ TICKETRUSH_DATA_DIR: t.dataDir, TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '0' })).toThrow(/TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE/);
  });
});

it('lifts every buying limit with TICKETRUSH_RATE_LIMITS=off', async () => {
  const open = await startTestNode({ listen: false, env: { TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '1' } });
  try {
    const a = await adminClient(open.node.app);
    const show = await createShow(a, { maxSeatsPerUser: 10 });
    const b = await new ApiClient(open.node.app).signUp('unlimited');
    for (let i = 1; i <= 4; i++) expect((await b.request('POST', `/api/v1/shows/${show}/holds`, { seatIds: [`A-1-${i}`] })).status).toBe(201);
  } finally {
    await open.close();
  }
});

describe.skipIf(testStore !== 'postgres+redis')('with Redis', () => {
  it('counts every process together: a second process over the same Redis sees the first one\'s requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ticketrush-limits-b-'));
    const other = await composeNode(loadConfig({
      PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', ...t.database.env, TICKETRUSH_DATA_DIR: dir,
      TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '3', TICKETRUSH_RATE_LIMIT_HOLD_PER_IP_PER_MINUTE: '5',
    }), { logger: false, warmStore: false });
    try {
      const token = await buyer('shared-1');
      for (let i = 0; i < 3; i++) expect((await hold('shared-1', newIp())).status).toBe(201);
      const there = await other.app.inject({ method: 'POST', url: `/api/v1/shows/${showId}/holds`, payload: { seatIds: [nextSeat()] }, remoteAddress: newIp(), headers: { authorization: `Bearer ${token}` } });
      expect({ status: there.statusCode, code: (there.json() as { code?: string }).code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    } finally {
      await other.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
