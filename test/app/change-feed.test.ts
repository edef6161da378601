import { describe, expect, it } from 'vitest';
import { startChangeFeed } from '../../src/app/change-feed.js';
import type { SeatMapCache } from '../../src/app/seat-map-cache.js';
import type { InventoryChanges, OutboxEvent, OutboxPage } from '../../src/ports/engine/index.js';

const event = (position: number, origin: string, type: OutboxEvent['type'], changes: InventoryChanges | null): OutboxEvent => ({
  position: String(position), eventId: `e${position}`, type, showId: 'show_1', createdAt: 0, origin, data: {}, changes,
});

/** The feed applies other processes' rows, skips its own, starts at the head, and never loses its place on a failed read. */
describe('change feed', () => {
  it('applies rows of other origins only, from the head on, and reads again from the same place after a failure', async () => {
    const rows: OutboxEvent[] = [
      event(1, 'other', 'hold.created', { showId: 'show_1', seats: [], stock: [] }),
      event(2, 'me', 'hold.created', { showId: 'show_1', seats: [{ seatId: 'A-1-1', status: 'HELD', holdId: 'h', version: 1 }], stock: [] }),
      event(3, 'other', 'hold.created', { showId: 'show_1', seats: [{ seatId: 'A-1-2', status: 'HELD', holdId: 'h2', version: 1 }], stock: [{ sectionId: 'G', delta: -1 }] }),
      event(4, 'other', 'show.changed', null),
    ];
    let failNext = false;
    const reads: (string | null)[] = [];
    const store = {
      outboxHead: async () => '1',
      readOutbox: async (after: string | null, limit: number): Promise<OutboxPage> => {
        reads.push(after);
        if (failNext) {
          failNext = false;
          throw new Error('store away');
        }
        const events = rows.filter((r) => Number(r.position) > Number(after ?? 0)).slice(0, limit);
        return { events, position: events.at(-1)?.position ?? after };
      },
      getShow: async () => null,
    };
    const applied: (InventoryChanges | null)[] = [];
    const refreshed: string[] = [];
    const seatMaps = {
      applyRemote: (changes: InventoryChanges | null) => void applied.push(changes),
      refreshShow: async (showId: string) => void refreshed.push(showId),
    } as unknown as SeatMapCache;
    const errors: unknown[] = [];
    const feed = await startChangeFeed(store, seatMaps, 'me', { intervalMs: 60_000, onError: (e) => errors.push(e) });
    try {
      expect(feed.position).toBe('1');
      failNext = true;
      expect(await feed.tick()).toBe(0);
      expect(errors).toHaveLength(1);
      expect(feed.position).toBe('1');
      expect(await feed.tick()).toBe(3);
      // Row 1 was before the head; row 2 is this process's own (applied when its call returned).
      expect(applied).toEqual([rows[2]?.changes, null]);
      expect(refreshed).toEqual(['show_1']);
      expect(feed.position).toBe('4');
      expect(reads).toEqual(['1', '1']);
    } finally {
      feed.stop();
    }
  });
});
