import type { Store } from '../../src/ports/engine/index.js';
import { claimBase, ga, held, minute, newOrder, newShow, newUser, seated, T0 } from './fixtures.js';
import { Names } from './outcomes.js';

/**
 * One scripted sale, the same on every adapter: each claim, refusal, release, extension and order
 * step the inventory answers, recorded normalised (outcomes.ts). The contract suite compares each
 * step with the expected answer field by field, and, where several stores are reachable, the
 * stores with each other.
 */
export async function outcomeScript(store: Store): Promise<{ step: string; outcome: unknown }[]> {
  const names = new Names();
  const steps: { step: string; outcome: unknown }[] = [];
  const record = (step: string, outcome: unknown): void => {
    steps.push({ step, outcome: seatChangesBySeat(names.normalise(outcome)) });
  };
  const show = await newShow(store, [seated('A', 3, 6), seated('B', 2, 4, 'SEAT', 7000), seated('Q', 2, 5, 'QUANTITY'), ga('GA', 20)], 6);
  names.name(show.showId, 'show');
  const alice = names.name(await newUser(store), 'alice');
  const bob = names.name(await newUser(store), 'bob');
  const carol = names.name(await newUser(store), 'carol');
  const dave = names.name(await newUser(store), 'dave');
  const base = (userId: string, name: string, overrides: Parameters<typeof claimBase>[2] = {}) => {
    const b = claimBase(show, userId, { userUnitsMax: 6, ...overrides });
    names.name(b.holdId, name);
    return b;
  };

  // Side by side in one row (asked out of order), then scattered, then across sections.
  const pair = await store.claimSeats({ ...base(alice, 'pair'), seatIds: ['A-1-3', 'A-1-2'] });
  record('claimSeats side by side', pair);
  record('claimSeats same row with a gap', await store.claimSeats({ ...base(bob, 'gap'), seatIds: ['A-2-1', 'A-2-3'] }));
  record('claimSeats two rows', await store.claimSeats({ ...base(bob, 'rows'), seatIds: ['A-3-1', 'B-1-1'] }));
  record('claimSeats one seat', await store.claimSeats({ ...base(carol, 'one'), seatIds: ['B-2-4'] }));
  // Refusals, each with every field the port names.
  record('claimSeats taken', await store.claimSeats({ ...base(carol, 'taken'), seatIds: ['A-1-1', 'A-1-2', 'A-1-3'] }));
  record('claimSeats missing', await store.claimSeats({ ...base(carol, 'missing'), seatIds: ['A-1-1', 'A-9-9', 'Q-1-1'] }));
  record('claimSeats over the cap', await store.claimSeats({ ...base(bob, 'cap'), seatIds: ['A-3-3', 'A-3-4', 'A-3-5'] }));
  // Best-available and counted sections.
  record('claimBestAvailable pair in B', await store.claimBestAvailable({ ...base(carol, 'best'), quantity: 2, sectionId: 'B', adjacentOnly: true }));
  record('claimBestAvailable no run that long', await store.claimBestAvailable({ ...base(dave, 'best-none', { userUnitsMax: 100 }), quantity: 4, sectionId: 'B', adjacentOnly: true }));
  record('claimBestAvailable over the cap', await store.claimBestAvailable({ ...base(carol, 'best-cap'), quantity: 4, sectionId: 'B', adjacentOnly: false }));
  record('claimBestAvailable in a counted section', await store.claimBestAvailable({ ...base(carol, 'best-q'), quantity: 2, sectionId: 'Q', adjacentOnly: false }));
  const units = await store.claimUnits({ ...base(alice, 'units'), sectionId: 'GA', quantity: 3 });
  record('claimUnits', units);
  record('claimUnits seated by quantity', await store.claimUnits({ ...base(carol, 'units-q'), sectionId: 'Q', quantity: 1 }));
  record('claimUnits more than left', await store.claimUnits({ ...base(dave, 'units-none', { userUnitsMax: 100 }), sectionId: 'GA', quantity: 18 }));
  record('claimUnits over the cap', await store.claimUnits({ ...base(alice, 'units-cap'), sectionId: 'GA', quantity: 2 }));
  // Extending, releasing, expiring.
  const p = held(pair);
  record('extendHold', await store.extendHold({ holdId: p.holdId, expectedExpiresAt: p.expiresAt, expectedExtensions: 0, expiresAt: p.expiresAt + 5 * minute, extensions: 1 }));
  record('extendHold stale', await store.extendHold({ holdId: p.holdId, expectedExpiresAt: p.expiresAt, expectedExtensions: 0, expiresAt: p.expiresAt + 9 * minute, extensions: 1 }));
  record('lapseHold release stale', await store.lapseHold({ holdId: p.holdId, event: 'RELEASE', expectedExpiresAt: p.expiresAt, now: T0 + 1 }));
  record('lapseHold release', await store.lapseHold({ holdId: p.holdId, event: 'RELEASE', expectedExpiresAt: p.expiresAt + 5 * minute, now: T0 + 1 }));
  record('lapseHold again', await store.lapseHold({ holdId: p.holdId, event: 'RELEASE', expectedExpiresAt: p.expiresAt + 5 * minute, now: T0 + 2 }));
  record('lapseHold unknown', await store.lapseHold({ holdId: 'hold_nobody', event: 'EXPIRE', expectedExpiresAt: T0, now: T0 + 2 }));
  const u = held(units);
  const order = newOrder(u, 'key-1');
  names.name(order.orderId, 'order');
  record('openOrder', await store.openOrder(order));
  record('lapseHold expire with its unpaid order', await store.lapseHold({ holdId: u.holdId, event: 'EXPIRE', expectedExpiresAt: u.expiresAt, now: u.expiresAt }));
  // The released pair can be had again, side by side, with the seats' versions moved on.
  record('claimSeats released seats', await store.claimSeats({ ...base(dave, 'again', { userUnitsMax: 100 }), seatIds: ['A-1-2', 'A-1-3', 'A-1-4'] }));
  return steps;
}

/**
 * The port lists an operation's seat changes as a set (each carries its own version): the order
 * differs between adapters (SQLite gives a hold back in line order, PostgreSQL in lock order),
 * so it is compared sorted by seat. Everything else is compared as answered.
 */
function seatChangesBySeat(outcome: unknown): unknown {
  const changes = (outcome as { changes?: { seats?: { seatId: string }[]; stock?: { buckets?: { available: number }[] }[] } }).changes;
  if (changes?.seats === undefined) return outcome;
  const seats = [...changes.seats].sort((a, b) => (a.seatId < b.seatId ? -1 : a.seatId > b.seatId ? 1 : 0));
  // How a section's stock is split into buckets is the adapter's own (PostgreSQL: 16, picked at
  // random; SQLite: one), so the buckets a change reports are left out here; that every stock
  // change reports them, and that read models agree on them, is test/app/seat-map-cache.test.ts's.
  const stock = (changes.stock ?? []).map(({ buckets: _buckets, ...rest }) => rest);
  return { ...(outcome as object), changes: { ...changes, seats, ...(changes.stock === undefined ? {} : { stock }) } };
}
