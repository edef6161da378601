import { describe, expect, it } from 'vitest';
import { checkShow } from '../../src/app/inventory-audit.js';
import type { ShowAudit } from '../../src/ports/engine/index.js';

/**
 * Issue 32, found by the money simulation (sqlite seeds 3027, 3032, 3038 at 80 steps): a partial
 * exchange carries some of an order's value into a new order; refunding the rest whole leaves the
 * old order REFUNDED while its payment is only PARTIALLY_REFUNDED (the new order still holds the
 * carried part). The auditor allows exactly that, and still flags the same rows without an exchange.
 */
describe('payment_ledger beside a partial exchange', () => {
  const audit = (exchangedOutOrderIds: string[]): ShowAudit => ({
    seats: [], sections: [], holds: [], userUnits: [], pendingRefundTicketIds: [], exchangedOutOrderIds,
    orders: [{ orderId: 'o1', holdId: 'h1', userId: 'u1', status: 'REFUNDED', amountCents: 3000, updatedAt: 0, lines: [] }],
    payments: [{ paymentId: 'p1', orderId: 'o1', status: 'PARTIALLY_REFUNDED', amountCents: 3000, updatedAt: 0 }],
    tickets: [{ ticketId: 't1', orderId: 'o1', sectionId: 'G', seatId: null, status: 'INVALID' }, { ticketId: 't2', orderId: 'o1', sectionId: 'G', seatId: null, status: 'INVALID' }],
  });
  const options = { now: 1_000, boundMs: 60_000 };

  it('a REFUNDED order that gave tickets up by exchange may keep its payment PARTIALLY_REFUNDED', () => {
    expect(checkShow('s1', audit(['o1']), null, options)).toEqual([]);
  });

  it('without an exchange the same rows are a violation', () => {
    expect(checkShow('s1', audit([]), null, options).map((v) => [v.check, v.subject])).toEqual([['payment_ledger', 'p1']]);
  });
});
