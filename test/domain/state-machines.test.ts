import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockMachine, exchangeMachine, holdMachine, orderMachine, paymentMachine, seatMachine, ticketMachine, type StateMachine } from '../../src/domain/index.js';

/** The transition tables as the business states them; the code must match them exactly. */
const expected: Record<string, Record<string, Record<string, string>>> = {
  seat: {
    AVAILABLE: { HOLD: 'HELD' },
    HELD: { RELEASE: 'AVAILABLE', SELL: 'SOLD' },
    // An exchange (issue 25 item 4) gives the old seat up in the transaction that sells the new one.
    SOLD: { REQUEST_REFUND: 'REFUND_PENDING', EXCHANGE_OUT: 'AVAILABLE' },
    // A refund the provider refuses gives the seat back to its buyer (issue 25).
    REFUND_PENDING: { COMPLETE_REFUND: 'AVAILABLE', REFUSE_REFUND: 'SOLD' },
  },
  hold: {
    ACTIVE: { CONFIRM: 'CONFIRMED', EXPIRE: 'EXPIRED', RELEASE: 'RELEASED', EXTEND: 'ACTIVE' },
    // Only a late payment that finds every seat still free brings a lapsed hold back.
    EXPIRED: { CONFIRM_LATE: 'CONFIRMED' },
    RELEASED: { CONFIRM_LATE: 'CONFIRMED' },
    CONFIRMED: {},
  },
  order: {
    INIT: { AWAIT_PAYMENT: 'PENDING_PAY', ABORT: 'CANCELLED' },
    PENDING_PAY: { PAY: 'PAID', CANCEL: 'CANCELLED' },
    PAID: { ISSUE_TICKETS: 'TICKETED' },
    // A whole refund waits for the provider; a refused one returns to TICKETED (issue 25).
    TICKETED: { REQUEST_REFUND: 'REFUND_PENDING' },
    REFUND_PENDING: { COMPLETE_REFUND: 'REFUNDED', REFUSE_REFUND: 'TICKETED' },
    CANCELLED: { PAY_LATE: 'PAID', REFUND: 'REFUNDED' },
    REFUNDED: {},
  },
  payment: {
    PENDING: { SUCCEED: 'SUCCEEDED', FAIL: 'FAILED' },
    SUCCEEDED: { REQUIRE_REFUND: 'REFUND_PENDING', REFUND_PART: 'PARTIALLY_REFUNDED', REFUND_ALL: 'REFUNDED' },
    // A decline followed by a success (the card was retried): the money is real.
    FAILED: { SUCCEED: 'SUCCEEDED' },
    REFUND_PENDING: { COMPLETE_REFUND: 'REFUNDED' },
    // Issue 32: refunds of a sold order the provider confirmed, in part and then in whole.
    PARTIALLY_REFUNDED: { REFUND_PART: 'PARTIALLY_REFUNDED', REFUND_ALL: 'REFUNDED' },
    REFUNDED: {},
  },
  ticket: {
    VALID: { CHECK_IN: 'USED', INVALIDATE: 'INVALID' },
    USED: { INVALIDATE: 'INVALID' },
    // Only the tickets of a refund the provider refused come back.
    INVALID: { REINSTATE: 'VALID' },
  },
  block: {
    ACTIVE: { LIFT: 'LIFTED' },
    LIFTED: {},
  },
  // A dearer exchange waits for its difference; an even or cheaper one is born COMPLETED.
  exchange: {
    PENDING: { COMPLETE: 'COMPLETED', ABANDON: 'ABANDONED' },
    COMPLETED: {},
    ABANDONED: {},
  },
};

const machines: StateMachine<string, string>[] = [seatMachine, holdMachine, orderMachine, paymentMachine, ticketMachine, blockMachine, exchangeMachine];

describe.each(machines.map((m) => [m.name, m] as const))('%s state machine', (name, machine) => {
  const table = expected[name] ?? {};

  it('has exactly the business states', () => {
    expect([...machine.states].sort()).toEqual(Object.keys(table).sort());
  });

  it('allows exactly the listed transitions and refuses every other one with a typed ILLEGAL_TRANSITION', () => {
    fc.assert(
      fc.property(fc.constantFrom(...machine.states), fc.constantFrom(...machine.events), (from, event) => {
        const result = machine.transition(from, event);
        const to = table[from]?.[event];
        expect(machine.can(from, event)).toBe(to !== undefined);
        if (to === undefined) {
          expect(result).toMatchObject({ ok: false, error: { code: 'ILLEGAL_TRANSITION', details: { machine: name, from, event } } });
        } else {
          expect(result).toEqual({ ok: true, value: to });
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('business rules the tables encode', () => {
  it('reaches SOLD only from HELD, and a seat is never sold twice', () => {
    for (const from of seatMachine.states) expect(seatMachine.can(from, 'SELL')).toBe(from === 'HELD');
  });

  it('lets an expired or released hold become CONFIRMED only through a late payment, never an order', () => {
    expect(holdMachine.can('EXPIRED', 'CONFIRM')).toBe(false);
    expect(holdMachine.can('RELEASED', 'CONFIRM')).toBe(false);
    expect(holdMachine.can('EXPIRED', 'EXTEND')).toBe(false);
  });

  it('never takes a TICKETED order anywhere but to a refund, nor a REFUNDED order anywhere', () => {
    for (const event of orderMachine.events) {
      expect(orderMachine.can('TICKETED', event)).toBe(event === 'REQUEST_REFUND');
      expect(orderMachine.can('REFUNDED', event)).toBe(false);
    }
  });
});
