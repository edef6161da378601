import { describe, expect, it } from 'vitest';
import { checkWebhookEvents, checkWebhookUrl, decideAttempt, selfAddressOf, type RetryPolicy } from '../../src/domain/index.js';
import { signWebhook, verifyWebhook } from '../../src/lib/webhook-signature.js';

const policy: RetryPolicy = { baseDelayMs: 10_000, maxDelayMs: 3_600_000, windowMs: 3 * 86_400_000 };
const self = [{ host: '127.0.0.1', port: 3000 }, selfAddressOf('https://tickets.example.com')!];
const code = (url: string) => {
  const r = checkWebhookUrl(url, self);
  return r.ok ? 'OK' : r.error.code;
};

describe('webhook URLs', () => {
  it('takes http(s) only, at most 2 KB, without credentials', () => {
    expect(code('https://hooks.example.org/in')).toBe('OK');
    expect(code('http://10.0.0.5:8080/x')).toBe('OK');
    expect(code('ftp://hooks.example.org/in')).toBe('WEBHOOK_URL_INVALID');
    expect(code('file:///etc/passwd')).toBe('WEBHOOK_URL_INVALID');
    expect(code('/relative')).toBe('WEBHOOK_URL_INVALID');
    expect(code('https://a:b@hooks.example.org/')).toBe('WEBHOOK_URL_INVALID');
    expect(code(`https://hooks.example.org/${'a'.repeat(2048 - 26)}`)).toBe('OK');
    expect(code(`https://hooks.example.org/${'a'.repeat(2048 - 25)}`)).toBe('WEBHOOK_URL_TOO_LONG');
  });

  it("refuses this server's own host and port under any loopback name, and its public URL; allows other ports", () => {
    for (const url of ['http://127.0.0.1:3000/x', 'http://localhost:3000/x', 'http://LOCALHOST:3000', 'http://[::1]:3000/', 'http://127.0.0.2:3000/', 'http://0.0.0.0:3000/',
      'https://tickets.example.com/hook', 'https://tickets.example.com:443/hook', 'https://Tickets.Example.com./x'.replace('.com.', '.com')]) {
      expect({ url, code: code(url) }).toEqual({ url, code: 'WEBHOOK_URL_LOOP' });
    }
    for (const url of ['http://127.0.0.1:3001/x', 'http://localhost:9/x', 'http://tickets.example.com/x', 'https://other.example.com/x']) {
      expect({ url, code: code(url) }).toEqual({ url, code: 'OK' });
    }
    // A server listening on every interface answers on every loopback name.
    expect(checkWebhookUrl('http://localhost:8080/', [{ host: '0.0.0.0', port: 8080 }])).toMatchObject({ ok: false, error: { code: 'WEBHOOK_URL_LOOP' } });
  });

  it('takes known event names only, once each', () => {
    expect(checkWebhookEvents(['a', 'b', 'a'], ['a', 'b', 'c'])).toEqual({ ok: true, value: ['a', 'b'] });
    expect(checkWebhookEvents(['a', 'x'], ['a', 'b'])).toMatchObject({ ok: false, error: { code: 'WEBHOOK_EVENT_UNKNOWN', details: { unknown: ['x'] } } });
  });
});

describe('delivery attempts', () => {
  const T = 1_000_000;
  it('2xx delivers, 410 is gone, anything else retries with a full-jitter exponential backoff', () => {
    expect(decideAttempt({ kind: 'response', statusCode: 204 }, 1, T, T, 0.5, policy)).toEqual({ outcome: 'DELIVERED' });
    expect(decideAttempt({ kind: 'response', statusCode: 410 }, 3, T, T, 0.5, policy)).toEqual({ outcome: 'GONE' });
    expect(decideAttempt({ kind: 'response', statusCode: 301 }, 1, T, T, 1, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T + 10_000 });
    expect(decideAttempt({ kind: 'error', error: 'timed out' }, 3, T, T, 1, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T + 40_000 });
    expect(decideAttempt({ kind: 'response', statusCode: 500 }, 3, T, T, 0.25, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T + 10_000 });
    expect(decideAttempt({ kind: 'response', statusCode: 500 }, 3, T, T, 0, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T });
    // Capped at an hour however many attempts.
    expect(decideAttempt({ kind: 'response', statusCode: 500 }, 500, T, T, 1, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T + 3_600_000 });
  });

  it('gives up (FAILED) once the next try would come more than three days after the event', () => {
    const late = T + 3 * 86_400_000 - 3_600_000;
    expect(decideAttempt({ kind: 'response', statusCode: 500 }, 80, T, late, 1, policy)).toEqual({ outcome: 'RETRY', nextAttemptAt: T + 3 * 86_400_000 });
    expect(decideAttempt({ kind: 'response', statusCode: 500 }, 80, T, late + 1, 1, policy)).toEqual({ outcome: 'FAILED' });
  });
});

describe('webhook signatures (shared with the payment callback)', () => {
  const body = '{"id":"evt_1"}';
  it('accepts its own signature, refuses another secret or body, and a timestamp too old or too far in the future', () => {
    const now = 1_800_000_000;
    expect(verifyWebhook('s', signWebhook('s', body, now), body, now, 300)).toBe('VALID');
    expect(verifyWebhook('other', signWebhook('s', body, now), body, now, 300)).toBe('BAD_SIGNATURE');
    expect(verifyWebhook('s', signWebhook('s', body, now), `${body} `, now, 300)).toBe('BAD_SIGNATURE');
    expect(verifyWebhook('s', signWebhook('s', body, now - 301), body, now, 300)).toBe('STALE');
    // The future too (a removed Math.abs once left every test green).
    expect(verifyWebhook('s', signWebhook('s', body, now + 301), body, now, 300)).toBe('STALE');
    expect(verifyWebhook('s', signWebhook('s', body, now + 300), body, now, 300)).toBe('VALID');
    expect(verifyWebhook('s', 'v1=abc', body, now, 300)).toBe('MALFORMED');
  });
});
