import { createShow as layOut, type SeatMapSpec } from '../../src/domain/index.js';
import type { Store } from '../../src/ports/engine/index.js';

export type { SeatMapSpec };

/** Creates a show on sale from t=0 to t=10^9 through the port. */
export async function createShow(store: Store, showId: string, seatMap: SeatMapSpec): Promise<void> {
  const made = layOut({ showId, title: 'T', venue: 'V', city: 'C', startsAt: 2e9, saleStartsAt: 0, saleEndsAt: 1e9, seatMap, maxSeatsPerUser: null }, 0);
  if (!made.ok) throw new Error(made.error.message);
  await store.createShow(made.value);
}

export function unwrapOk<T extends { readonly ok: boolean }>(outcome: T): T & { ok: true } {
  if (!outcome.ok) throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome as T & { ok: true };
}
