import { describe, expect, it } from 'vitest';
import { blockInForce, liftBlock, newBlock } from '../../src/domain/index.js';
import { normalCidr, plainAddress } from '../../src/app/blocklist.js';

const base = { blockId: 'blk_1', target: { kind: 'IP', cidr: '10.0.0.0/8' } as const, reason: 'bot', createdBy: 'admin', now: 1_000 };

describe('blocklist rules', () => {
  it('builds an ACTIVE entry, refusing an empty reason or a past expiry with INVALID_BLOCK', () => {
    expect(newBlock({ ...base, expiresAt: null })).toMatchObject({ ok: true, value: { status: 'ACTIVE', liftedAt: null, reason: 'bot' } });
    expect(newBlock({ ...base, reason: '  ', expiresAt: null })).toMatchObject({ ok: false, error: { code: 'INVALID_BLOCK' } });
    expect(newBlock({ ...base, reason: 'x'.repeat(501), expiresAt: null })).toMatchObject({ ok: false, error: { code: 'INVALID_BLOCK' } });
    expect(newBlock({ ...base, expiresAt: 1_000 })).toMatchObject({ ok: false, error: { code: 'INVALID_BLOCK' } });
  });

  it('is in force while ACTIVE and before its expiry; lifts once', () => {
    const built = newBlock({ ...base, expiresAt: 2_000 });
    if (!built.ok) throw new Error('not built');
    expect(blockInForce(built.value, 1_999)).toBe(true);
    expect(blockInForce(built.value, 2_000)).toBe(false);
    const lifted = liftBlock(built.value, 1_500);
    expect(lifted).toMatchObject({ ok: true, value: { status: 'LIFTED', liftedAt: 1_500 } });
    if (!lifted.ok) throw new Error('not lifted');
    expect(blockInForce(lifted.value, 1_600)).toBe(false);
    expect(liftBlock(lifted.value, 1_700)).toMatchObject({ ok: false, error: { code: 'ILLEGAL_TRANSITION' } });
  });

  it('normalises addresses and CIDRs, refusing anything else', () => {
    expect(normalCidr('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(normalCidr('::FFFF:203.0.113.9')).toBe('203.0.113.9');
    expect(normalCidr('2001:DB8::/32')).toBe('2001:db8::/32');
    expect(normalCidr('10.0.0.0/033')).toBeNull();
    expect(normalCidr('10.0.0.0/-1')).toBeNull();
    expect(normalCidr('1.2.3')).toBeNull();
    expect(normalCidr('10.0.0.0/8/8')).toBeNull();
    expect(plainAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });
});
