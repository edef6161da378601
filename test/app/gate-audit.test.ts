import { describe, expect, it } from 'vitest';
import { auditShows, checkGate } from '../../src/app/inventory-audit.js';
import type { GateSnapshot, ShowAudit } from '../../src/ports/engine/index.js';

/**
 * The Redis gate check's judgement, without Redis: seats and units compared with the store, and a
 * disagreement that lasts no longer than a relay lag is not a violation.
 */
const show = (status: 'AVAILABLE' | 'HELD'): ShowAudit => ({
  seatMap: { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 1, seatsPerRow: 2, priceCents: 100, sellBy: 'SEAT', accessible: [] }, { id: 'GA', name: 'GA', kind: 'GENERAL_ADMISSION', capacity: 5, priceCents: 100 }] },
  seats: [{ seatId: 'A-1-1', sectionId: 'A', status, holdId: status === 'HELD' ? 'h1' : null }, { seatId: 'A-1-2', sectionId: 'A', status: 'AVAILABLE', holdId: null }],
  sections: [{ sectionId: 'A', kind: 'SEATED', sellBy: 'SEAT', capacity: 2, available: status === 'HELD' ? 1 : 2 }, { sectionId: 'GA', kind: 'GENERAL_ADMISSION', sellBy: 'QUANTITY', capacity: 5, available: 5 }],
  holds: [], orders: [], payments: [], tickets: [], userUnits: [],
});
const gate = (firstSeatTaken: boolean, gaLeft = 5, built = true): GateSnapshot => ({ built, taken: new Uint8Array([firstSeatTaken ? 0b1000_0000 : 0]), units: { GA: gaLeft } });

describe('the Redis gate check', () => {
  it('flags a leaked take, a missed take and units that differ; an unbuilt gate never', () => {
    expect(checkGate('s', show('AVAILABLE'), gate(false))).toEqual([]);
    expect(checkGate('s', show('HELD'), gate(true))).toEqual([]);
    expect(checkGate('s', show('AVAILABLE'), gate(true)).map((v) => v.subject)).toEqual(['A-1-1']);
    expect(checkGate('s', show('HELD'), gate(false)).map((v) => v.subject)).toEqual(['A-1-1']);
    expect(checkGate('s', show('AVAILABLE'), gate(false, 4)).map((v) => v.subject)).toEqual(['GA']);
    expect(checkGate('s', show('AVAILABLE'), gate(true, 4, false))).toEqual([]);
  });

  it('reads again after a pause: a disagreement gone by then (the relay caught up) is not a violation, one still there is', async () => {
    const run = async (gates: GateSnapshot[]) => {
      let read = 0;
      const pass = await auditShows({
        audit: async () => show('HELD'),
        auditShowIds: async (after) => (after === null ? ['s'] : []),
        ledger: null,
        gate: { read: async () => gates[Math.min(read++, gates.length - 1)] as GateSnapshot, close: async () => undefined },
      }, { now: 0, boundMs: 60_000 });
      return pass.counts.redis_gate;
    };
    expect(await run([gate(false), gate(true)])).toBe(0);
    expect(await run([gate(false), gate(false)])).toBe(1);
  });
});
