import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Payment callback and outgoing webhook signatures: header `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 * Shared by the sandbox provider (which signs) and the callback route (which verifies).
 */
export function signWebhook(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

const hexPattern = /^[0-9a-fA-F]{64}$/;
/** Unix seconds as the signer writes them: decimal digits only ("", "0x10", "1e9" or "1.5" are not a time). */
const secondsPattern = /^\d{1,12}$/;

export type WebhookVerdict = 'VALID' | 'MALFORMED' | 'BAD_SIGNATURE' | 'STALE';

export function verifyWebhook(secret: string, header: string | undefined, rawBody: string, nowSeconds: number, toleranceSeconds: number): WebhookVerdict {
  if (header === undefined || header.length > 512) return 'MALFORMED';
  const fields = new Map<string, string[]>();
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === undefined || value === undefined) return 'MALFORMED';
    fields.set(name, [...(fields.get(name) ?? []), value]);
  }
  const rawT = fields.get('t')?.[0] ?? '';
  const candidates = fields.get('v1') ?? [];
  if (!secondsPattern.test(rawT) || candidates.length === 0) return 'MALFORMED';
  const t = Number(rawT);
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  // Compared as the bytes the hex stands for, so a candidate of any length or alphabet is just "no match".
  const matches = candidates.some((c) => hexPattern.test(c) && timingSafeEqual(Buffer.from(c, 'hex'), expected));
  if (!matches) return 'BAD_SIGNATURE';
  // Both ways: a timestamp ahead of our clock by more than the skew is as stale as one behind it
  // (else a request signed far in the future could be replayed until then).
  return Math.abs(nowSeconds - t) > toleranceSeconds ? 'STALE' : 'VALID';
}
