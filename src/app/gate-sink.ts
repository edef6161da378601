import type { SeatLayout } from '../domain/index.js';
import type { OutboxEvent, OutboxSink } from '../ports/engine/outbox.js';
import type { InventoryGate } from '../ports/inventory-gate.js';
import { gateChangesOf } from './inventory-gate.js';

export interface GateSinkOptions {
  /** The show's layout (seat id -> bitmap index); null when the show is unknown (its events are skipped). */
  readonly layoutOf: (showId: string) => Promise<SeatLayout | null>;
  /**
   * This process's origin when it already fed the gate its own commits (applyOwnChanges): its
   * units given back are then skipped here, since a units delta, unlike a versioned seat, would
   * count twice. Null: every event's units are applied.
   */
  readonly ownOrigin?: string | null;
}

/**
 * The outbox relay's sink 'redis-gate': what any process committed (expiry, release, cancel,
 * refund, a sale) reaches the shared gate within the relay's lag, so Redis never refuses for
 * longer than that what the database freed. Each event is applied at most once per show, by its
 * outbox position checked inside the gate's script: every process runs the relay and moves the
 * shared cursor only after delivering, so the page a relay lost the race for was delivered too,
 * and a units delta counted per delivery would inflate the gate (seats are fenced by version as
 * well). A failure throws, and the relay redelivers the page.
 */
export function redisGateSink(gate: InventoryGate, options: GateSinkOptions): OutboxSink {
  return {
    name: 'redis-gate',
    async deliver(events: readonly OutboxEvent[]): Promise<void> {
      for (const event of events) {
        if (event.changes === null || event.showId === null) continue;
        const layout = await options.layoutOf(event.changes.showId);
        if (layout === null) continue;
        const changes = gateChangesOf(layout, event.changes);
        const own = options.ownOrigin !== undefined && options.ownOrigin !== null && event.origin === options.ownOrigin;
        // The event's position goes with it: the gate applies each position once per show, in the
        // same script, since every process's relay may deliver this page (see GateChanges.position).
        await gate.applyChanges(event.changes.showId, { position: event.position, seats: changes.seats, unitsBack: own ? [] : changes.unitsBack });
      }
    },
  };
}
