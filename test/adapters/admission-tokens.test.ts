import { describe, expect, it } from 'vitest';
import { admissionTokenBytesMax, hmacAdmissionTokens } from '../../src/adapters/crypto/admission-tokens.js';

const tokens = hmacAdmissionTokens('a-test-secret-of-at-least-32-characters!');
const expected = { userId: 'usr_a', activityId: 'shw_a', now: 1_000 };

describe('HMAC admission tokens', () => {
  it('verifies what it issued, bound to the user, the activity and the expiry, with no storage', () => {
    const token = tokens.issue({ userId: 'usr_a', activityId: 'shw_a', expiresAt: 2_000 });
    expect(tokens.verify(token, expected)).toEqual({ ok: true, claims: { userId: 'usr_a', activityId: 'shw_a', expiresAt: 2_000 } });
    expect(tokens.verify(token, { ...expected, userId: 'usr_b' })).toEqual({ ok: false, reason: 'other-user' });
    expect(tokens.verify(token, { ...expected, activityId: 'shw_b' })).toEqual({ ok: false, reason: 'other-activity' });
    expect(tokens.verify(token, { ...expected, now: 2_000 })).toEqual({ ok: false, reason: 'expired' });
    // Another deployment's key signs tokens this one refuses.
    const other = hmacAdmissionTokens('another-secret-of-at-least-32-characters').issue({ userId: 'usr_a', activityId: 'shw_a', expiresAt: 2_000 });
    expect(tokens.verify(other, expected)).toEqual({ ok: false, reason: 'signature' });
  });

  it('refuses a token over 2 KB before reading it, even one it signed itself, and malformed ones', () => {
    const huge = tokens.issue({ userId: 'u'.repeat(admissionTokenBytesMax), activityId: 'shw_a', expiresAt: 2_000 });
    expect(huge.length).toBeGreaterThan(admissionTokenBytesMax);
    expect(tokens.verify(huge, { ...expected, userId: 'u'.repeat(admissionTokenBytesMax) })).toEqual({ ok: false, reason: 'too-large' });
    for (const bad of ['', 'at1', 'at1..', 'at2.e30.AAAA', 'at1.e30.AAAA.extra']) expect(tokens.verify(bad, expected).ok).toBe(false);
  });
});
