import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../src/lib/webhook-signature.js';

/**
 * The signature scheme of payment callbacks and outgoing webhooks:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, valid within a skew of
 * `tolerance` seconds either side of the receiver's clock.
 */
const secret = 'whsec_test_0123456789';
const body = '{"paymentId":"pay_1","status":"SUCCEEDED","amountCents":5000}';
const now = 1_900_000_000;
const tolerance = 300;
const mac = (t: number | string, b = body, s = secret): string => createHmac('sha256', s).update(`${t}.${b}`).digest('hex');
const verify = (header: string | undefined, atSeconds = now, rawBody = body) => verifyWebhook(secret, header, rawBody, atSeconds, tolerance);

describe('signWebhook', () => {
  it('writes t and the hex HMAC-SHA256 of "t.body"', () => {
    expect(signWebhook(secret, body, now)).toBe(`t=${now},v1=${mac(now)}`);
    expect(signWebhook(secret, body, now)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });
});

describe('verifyWebhook', () => {
  it('accepts a signature made now, and one made by signWebhook', () => {
    expect(verify(`t=${now},v1=${mac(now)}`)).toBe('VALID');
    expect(verify(signWebhook(secret, body, now - 10))).toBe('VALID');
  });

  it('accepts a timestamp in the past up to the tolerance, and refuses one second more as STALE', () => {
    expect(verify(signWebhook(secret, body, now - tolerance))).toBe('VALID');
    expect(verify(signWebhook(secret, body, now - tolerance - 1))).toBe('STALE');
    expect(verify(signWebhook(secret, body, now - 86_400))).toBe('STALE');
    expect(verify(signWebhook(secret, body, 0))).toBe('STALE');
  });

  it('accepts a timestamp in the future up to the tolerance (clock skew), and refuses one second more as STALE', () => {
    // Without the absolute value a signature "from the future" would never go stale: one captured
    // request signed far ahead could be replayed for as long as that.
    expect(verify(signWebhook(secret, body, now + tolerance))).toBe('VALID');
    expect(verify(signWebhook(secret, body, now + tolerance + 1))).toBe('STALE');
    expect(verify(signWebhook(secret, body, now + 86_400))).toBe('STALE');
    expect(verify(signWebhook(secret, body, now + 10 * 365 * 86_400))).toBe('STALE');
  });

  it('has a window of exactly 2 x tolerance + 1 seconds around the receiver clock', () => {
    const t = now;
    const valid = Array.from({ length: 2 * tolerance + 11 }, (_, i) => now - tolerance - 5 + i).filter((at) => verify(signWebhook(secret, body, t), at) === 'VALID');
    expect(valid).toHaveLength(2 * tolerance + 1);
    expect(valid[0]).toBe(now - tolerance);
    expect(valid.at(-1)).toBe(now + tolerance);
  });

  it('with tolerance 0 accepts only the same second', () => {
    const header = signWebhook(secret, body, now);
    expect(verifyWebhook(secret, header, body, now, 0)).toBe('VALID');
    expect(verifyWebhook(secret, header, body, now + 1, 0)).toBe('STALE');
    expect(verifyWebhook(secret, header, body, now - 1, 0)).toBe('STALE');
  });

  it('refuses a signature made with another secret as BAD_SIGNATURE', () => {
    expect(verify(`t=${now},v1=${mac(now, body, 'another-secret')}`)).toBe('BAD_SIGNATURE');
    expect(verifyWebhook('another-secret', signWebhook(secret, body, now), body, now, tolerance)).toBe('BAD_SIGNATURE');
    expect(verifyWebhook('', signWebhook(secret, body, now), body, now, tolerance)).toBe('BAD_SIGNATURE');
  });

  it('refuses a changed body as BAD_SIGNATURE, even by one byte or whitespace', () => {
    const header = signWebhook(secret, body, now);
    expect(verify(header, now, body.replace('5000', '5001'))).toBe('BAD_SIGNATURE');
    expect(verify(header, now, `${body} `)).toBe('BAD_SIGNATURE');
    expect(verify(header, now, JSON.stringify(JSON.parse(body), null, 1))).toBe('BAD_SIGNATURE');
    expect(verify(header, now, '')).toBe('BAD_SIGNATURE');
  });

  it('refuses a timestamp changed after signing as BAD_SIGNATURE (t is signed, so a stale request cannot be refreshed)', () => {
    expect(verify(`t=${now},v1=${mac(now - 3_600)}`)).toBe('BAD_SIGNATURE');
    expect(verify(`t=${now - 3_600},v1=${mac(now)}`)).toBe('BAD_SIGNATURE');
  });

  it('checks the signature before the time: a forged and stale header is BAD_SIGNATURE, not STALE', () => {
    expect(verify(`t=${now - 3_600},v1=${'0'.repeat(64)}`)).toBe('BAD_SIGNATURE');
    expect(verify(`t=${now + 3_600},v1=${mac(now + 3_600, body, 'wrong')}`)).toBe('BAD_SIGNATURE');
  });

  it('accepts any one matching v1 among several (secret rotation), upper-case hex and spaces after commas', () => {
    expect(verify(`t=${now},v1=${'a'.repeat(64)},v1=${mac(now)}`)).toBe('VALID');
    expect(verify(`t=${now}, v1=${mac(now).toUpperCase()}`)).toBe('VALID');
    expect(verify(`v1=${mac(now)},t=${now}`)).toBe('VALID');
    // Unknown schemes are ignored beside a valid v1.
    expect(verify(`t=${now},v0=deadbeef,v1=${mac(now)}`)).toBe('VALID');
  });

  it('answers BAD_SIGNATURE for a v1 that is not 64 hex digits, without throwing', () => {
    for (const v1 of ['', 'zz', mac(now).slice(0, 63), `${mac(now)}00`, 'g'.repeat(64), `${mac(now).slice(0, 62)}  `]) {
      expect(verify(`t=${now},v1=${v1}`)).toBe('BAD_SIGNATURE');
    }
  });

  it('answers MALFORMED for a missing, oversized or unparseable header', () => {
    const good = mac(now);
    const malformed = [
      undefined,
      '',
      'garbage',
      `v1=${good}`, // no timestamp
      `t=${now}`, // no signature
      `t=${now},v1`, // a part without "="
      `t=${now},,v1=${good}`, // an empty part
      `t=abc,v1=${good}`,
      `t=${now}.5,v1=${good}`,
      `t=,v1=${mac('')}`, // an empty timestamp is not 0
      `t= ,v1=${good}`,
      `t=0x10,v1=${mac(16)}`,
      `t=1e9,v1=${mac(1e9)}`,
      `t=${now},v1=${good},${'x'.repeat(600)}=1`, // over 512 characters
    ];
    for (const header of malformed) expect([header, verify(header)]).toEqual([header, 'MALFORMED']);
  });

  it('reads the first t when several are given, so a second one cannot move the signed time', () => {
    expect(verify(`t=${now},t=${now - 3_600},v1=${mac(now)}`)).toBe('VALID');
    expect(verify(`t=${now - 3_600},t=${now},v1=${mac(now)}`)).toBe('BAD_SIGNATURE');
  });
});
