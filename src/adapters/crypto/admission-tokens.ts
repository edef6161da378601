import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AdmissionCheck, AdmissionClaims, AdmissionTokens } from '../../ports/security.js';

/** A token larger than this is refused before anything in it is read (issue 24: 2 KB). */
export const admissionTokenBytesMax = 2_048;

const version = 'at1';

/**
 * HMAC-SHA256 admission tokens: `at1.<base64url(JSON claims)>.<base64url(mac)>`. The MAC covers
 * the version and the claims, under a key derived from the deployment's admission secret with a
 * label (so the secret is of no use as a MAC key anywhere else). Every process holds the same
 * secret (shared-secrets.ts), so any process verifies what another issued, with no storage read.
 */
export function hmacAdmissionTokens(secret: string): AdmissionTokens {
  const key = createHmac('sha256', secret).update('ticketrush admission token v1').digest();
  const mac = (body: string): Buffer => createHmac('sha256', key).update(`${version}.${body}`).digest();
  return {
    issue(claims: AdmissionClaims): string {
      const body = Buffer.from(JSON.stringify({ u: claims.userId, a: claims.activityId, e: claims.expiresAt })).toString('base64url');
      return `${version}.${body}.${mac(body).toString('base64url')}`;
    },
    verify(token, expected): AdmissionCheck {
      // Size first: nothing of an oversized token is decoded.
      if (token.length > admissionTokenBytesMax) return { ok: false, reason: 'too-large' };
      const parts = token.split('.');
      if (parts.length !== 3 || parts[0] !== version) return { ok: false, reason: 'malformed' };
      const [, body, sig] = parts as [string, string, string];
      const given = Buffer.from(sig, 'base64url');
      const wanted = mac(body);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { ok: false, reason: 'signature' };
      let claims: AdmissionClaims;
      try {
        const raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { u?: unknown; a?: unknown; e?: unknown };
        if (typeof raw.u !== 'string' || typeof raw.a !== 'string' || typeof raw.e !== 'number') return { ok: false, reason: 'malformed' };
        claims = { userId: raw.u, activityId: raw.a, expiresAt: raw.e };
      } catch {
        return { ok: false, reason: 'malformed' };
      }
      if (claims.expiresAt <= expected.now) return { ok: false, reason: 'expired' };
      if (claims.userId !== expected.userId) return { ok: false, reason: 'other-user' };
      if (claims.activityId !== expected.activityId) return { ok: false, reason: 'other-activity' };
      return { ok: true, claims };
    },
  };
}
