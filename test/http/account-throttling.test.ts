import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * Password guessing and mass registration are throttled (429 RATE_LIMITED with Retry-After);
 * real users signing in are not; an unknown username costs the same hash as a known one.
 * Each node here has small limits so the tests stay quick.
 */
let t: TestNode;
beforeAll(async () => {
  t = await startTestNode({
    listen: false,
    env: {
      TICKETRUSH_LOGIN_FAILURES_PER_USER_IP: '5',
      TICKETRUSH_LOGIN_FAILURES_PER_USER: '8',
      TICKETRUSH_LOGIN_FAILURES_PER_IP: '12',
      TICKETRUSH_REGISTRATIONS_PER_IP: '15',
      TICKETRUSH_LOGIN_SLOWDOWN_MS: '300',
    },
  });
});
afterAll(async () => t.close());

let ipSeq = 0;
const newIp = () => `10.0.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

async function post(url: string, payload: object, ip: string) {
  const response = await t.node.app.inject({ method: 'POST', url, payload, remoteAddress: ip });
  return { status: response.statusCode, body: response.json() as { code?: string; token?: string }, retryAfter: response.headers['retry-after'] };
}
const login = (username: string, password: string, ip: string) => post('/api/v1/auth/login', { username, password }, ip);
const register = (username: string, ip: string, password = 'password-123') => post('/api/v1/auth/register', { username, password }, ip);

describe('login throttling', () => {
  it('refuses a username from one address with 429 RATE_LIMITED and Retry-After after 5 failures, even with the right password', async () => {
    const ip = newIp();
    expect((await register('victim1', ip)).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await login('victim1', `wrong-password-${i}`, ip)).status).toBe(401);
    const refused = await login('victim1', 'password-123', ip);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    expect(String(refused.retryAfter)).toMatch(/^\d+$/);
    // Another address is not locked out by it, and the same name in another case is the same name.
    expect((await login('victim1', 'password-123', newIp())).status).toBe(200);
    expect((await login('VICTIM1', 'password-123', ip)).status).toBe(429);
  });

  it('counts failures only: many successful logins in a row are never throttled, and a success resets the count', async () => {
    const ip = newIp();
    expect((await register('regular1', ip)).status).toBe(201);
    for (let i = 0; i < 40; i++) expect((await login('regular1', 'password-123', ip)).status).toBe(200);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3; i++) expect((await login('regular1', 'typo-password', ip)).status).toBe(401);
      expect((await login('regular1', 'password-123', ip)).status).toBe(200);
    }
  });

  it('slows one username guessed from many addresses, but never locks its owner out', async () => {
    expect((await register('victim2', newIp())).status).toBe(201);
    for (let i = 0; i < 8; i++) expect((await login('victim2', 'wrong-password', newIp())).status).toBe(401);
    // Past the per-user count each attempt waits TICKETRUSH_LOGIN_SLOWDOWN_MS first, right or wrong.
    let started = Date.now();
    expect((await login('victim2', 'wrong-password', newIp())).status).toBe(401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    started = Date.now();
    expect((await login('victim2', 'password-123', newIp())).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('throttles one address trying many usernames', async () => {
    const ip = newIp();
    for (let i = 0; i < 12; i++) expect((await login(`nobody${i}`, 'wrong-password', ip)).status).toBe(401);
    const refused = await login('nobody-else', 'wrong-password', ip);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(refused.retryAfter).toBeDefined();
  });
});

describe('no lockout anyone can trigger', () => {
  it('lets the right password in from a new address after 5 addresses x 10 failures each (default limits)', async () => {
    const node = await startTestNode({ listen: false, env: { TICKETRUSH_LOGIN_SLOWDOWN_MS: '200' } });
    try {
      const at = (ip: string) => async (password: string) => (await node.node.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'target1', password }, remoteAddress: ip })).statusCode;
      expect((await node.node.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { username: 'target1', password: 'password-123' }, remoteAddress: '10.50.0.1' })).statusCode).toBe(201);
      for (let a = 0; a < 5; a++) {
        const attacker = at(`10.60.0.${a + 1}`);
        for (let i = 0; i < 10; i++) expect(await attacker(`wrong-password-${i}`)).toBe(401);
        // That address is now refused for this name (per user and address).
        expect(await attacker('password-123')).toBe(429);
      }
      expect(await at('10.70.0.1')('password-123')).toBe(200);
    } finally {
      await node.close();
    }
  }, 60_000);
});

describe('registration throttling', () => {
  it('refuses registrations from one address beyond the limit, with Retry-After; other addresses go on', async () => {
    const ip = newIp();
    for (let i = 0; i < 15; i++) expect((await register(`mass${i}`, ip)).status).toBe(201);
    const refused = await register('mass-extra', ip);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await register('mass-extra', newIp())).status).toBe(201);
  });
});

describe('username probing by timing', () => {
  it('verifies a password hash for an unknown username just as for a known one', async () => {
    const ip = newIp();
    expect((await register('known1', ip)).status).toBe(201);
    const verify = vi.spyOn(t.node.ctx.passwords, 'verify');
    try {
      expect((await login('known1', 'wrong-password', newIp())).status).toBe(401);
      expect(verify).toHaveBeenCalledTimes(1);
      expect((await login('unknown-user-1', 'wrong-password', newIp())).status).toBe(401);
      expect(verify).toHaveBeenCalledTimes(2);
      // Against a real scrypt hash of the same strength as the known user's, not an empty string that fails fast.
      const strength = (hash: unknown): string => String(hash).split('$').slice(0, 4).join('$');
      expect(strength(verify.mock.calls[1]?.[1])).toBe(strength(verify.mock.calls[0]?.[1]));
      expect(strength(verify.mock.calls[1]?.[1])).toBe(`scrypt$${t.node.config.scryptCost}$8$1`);
    } finally {
      verify.mockRestore();
    }
  });
});

it('switches every limit off with TICKETRUSH_RATE_LIMITS=off (load tests on one machine)', async () => {
  const open = await startTestNode({ listen: false, env: { TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_LOGIN_FAILURES_PER_USER_IP: '1', TICKETRUSH_REGISTRATIONS_PER_IP: '1' } });
  try {
    const api = new ApiClient(open.node.app);
    for (let i = 0; i < 3; i++) expect((await api.request('POST', '/api/v1/auth/register', { username: `loadtest${i}`, password: 'password-123' })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await api.request('POST', '/api/v1/auth/login', { username: 'loadtest0', password: 'wrong-password' })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/auth/login', { username: 'loadtest0', password: 'password-123' })).status).toBe(200);
  } finally {
    await open.close();
  }
});

it('refuses a malformed limit at start with a message naming the variable', async () => {
  const { loadConfig } = await import('../../src/config.js');
  const base = { TICKETRUSH_DATA_DIR: t.dataDir };
  expect(() => loadConfig({ ...base, TICKETRUSH_RATE_LIMITS: 'maybe' })).toThrow(/TICKETRUSH_RATE_LIMITS/);
  expect(() => loadConfig({ ...base, TICKETRUSH_LOGIN_FAILURES_PER_IP: '0' })).toThrow(/TICKETRUSH_LOGIN_FAILURES_PER_IP /);
  expect(() => loadConfig({ ...base, TICKETRUSH_REGISTRATIONS_PER_IP_SECONDS: '-1' })).toThrow(/TICKETRUSH_REGISTRATIONS_PER_IP_SECONDS/);
  expect(loadConfig({ ...base, TICKETRUSH_RATE_LIMITS: 'off' }).rateLimits).toBeNull();
  expect(loadConfig(base).rateLimits?.registrationsPerIp).toEqual({ events: 1000, windowSeconds: 600 });
  // scrypt's cost: a power of two, never below 1024; production strength by default.
  expect(loadConfig(base).scryptCost).toBe(16_384);
  expect(() => loadConfig({ ...base, TICKETRUSH_SCRYPT_COST: '3000' })).toThrow(/TICKETRUSH_SCRYPT_COST must be a power of two/);
  expect(() => loadConfig({ ...base, TICKETRUSH_SCRYPT_COST: '512' })).toThrow(/TICKETRUSH_SCRYPT_COST/);
});
