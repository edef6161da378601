import type { InventoryChanges, Store } from '../ports/engine/index.js';
import type { SeatMapCache } from './seat-map-cache.js';

/** The operations whose outcome carries what they changed in a show's inventory. */
const changing = ['claimSeats', 'claimBestAvailable', 'claimUnits', 'lapseHold', 'settlePayment', 'issueTickets', 'takeFlashSaleUnits', 'orderBargain', 'offerWaitlist', 'requestRefund', 'settleRefund', 'swapExchange', 'payExchange'] as const;

type Changed = { readonly ok: boolean; readonly changes?: InventoryChanges | null; readonly offered?: readonly { readonly changes: InventoryChanges }[]; readonly newShowChanges?: InventoryChanges };

/**
 * The one place this process's own writes reach its seat-map read model: the store, wrapped so
 * that every operation that moved inventory applies its `changes` the moment it returns (read
 * your writes, no wait for the feed). Use cases never feed the read model themselves. Changes
 * made by other processes arrive through the outbox (change-feed.ts), which skips this process's
 * own rows, so a stock delta is applied once.
 */
export function feedingReadModel(store: Store, seatMaps: Pick<SeatMapCache, 'apply' | 'replaceShow'>): Store {
  const wrapped: Record<string, unknown> = { ...store };
  const operations = store as unknown as Record<string, (...args: unknown[]) => Promise<Changed>>;
  for (const name of changing) {
    const operation = operations[name];
    if (operation === undefined) continue;
    wrapped[name] = async (...args: unknown[]) => {
      const outcome = await operation.apply(store, args);
      if (outcome.ok && outcome.changes !== undefined) seatMaps.apply(outcome.changes);
      // An exchange sells on the new show what it frees on the old one (swapExchange).
      if (outcome.ok && outcome.newShowChanges !== undefined) seatMaps.apply(outcome.newShowChanges);
      // A lapse that offered its seats to the waitlist in the same transaction (lapseHold).
      if (outcome.ok && outcome.offered !== undefined) for (const offer of outcome.offered) seatMaps.apply(offer.changes);
      return outcome;
    };
  }
  wrapped.updateShow = async (...args: Parameters<Store['updateShow']>) => {
    const outcome = await store.updateShow(...args);
    if (outcome.ok) seatMaps.replaceShow(outcome.show);
    return outcome;
  };
  return wrapped as unknown as Store;
}
