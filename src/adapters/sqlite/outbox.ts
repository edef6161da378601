import { randomUUID } from 'node:crypto';
import type { Database as Db } from 'better-sqlite3';
import type { InventoryChanges, OutboxDraft, OutboxEvent, OutboxEventType, OutboxStore } from '../../ports/engine/index.js';
import type { GroupCommit } from './group-commit.js';

/** Writes an operation's outbox rows; called inside the operation's unit (same transaction). */
export interface OutboxWriter {
  append(now: number, drafts: readonly (OutboxDraft | null)[]): void;
}

interface OutboxRow { id: number; event_id: string; type: OutboxEventType; show_id: string | null; created_at: number; origin: string; data: string; changes: string | null }

/** One prepared insert per row: the claim's extra cost is one small row in its own transaction. */
export function sqliteOutboxWriter(db: Db, origin: string): OutboxWriter {
  const insert = db.prepare('INSERT INTO outbox (event_id, type, show_id, created_at, origin, data, changes) VALUES (?, ?, ?, ?, ?, ?, ?)');
  return {
    append(now, drafts) {
      for (const d of drafts) {
        if (d === null) continue;
        insert.run(randomUUID(), d.type, d.showId, now, origin, JSON.stringify(d.data), d.changes === null ? null : JSON.stringify(d.changes));
      }
    },
  };
}

/** SQLite positions are the row id as a decimal string; anything else reads from the start. */
const idOf = (position: string | null): number => {
  if (position === null || !/^\d{1,15}$/.test(position)) return 0;
  return Number(position);
};

const toEvent = (r: OutboxRow): OutboxEvent => ({
  position: String(r.id), eventId: r.event_id, type: r.type, showId: r.show_id, createdAt: r.created_at, origin: r.origin,
  data: JSON.parse(r.data) as Record<string, unknown>, changes: r.changes === null ? null : (JSON.parse(r.changes) as InventoryChanges),
});

/**
 * The outbox's reads and the relay cursors on SQLite. One writer commits in id order, so the id
 * is the position. Reads run on the connection between batches: they see committed rows only.
 */
export function sqliteOutbox(db: Db, gc: GroupCommit): OutboxStore {
  const q = {
    page: db.prepare('SELECT * FROM outbox WHERE id > ? ORDER BY id LIMIT ?'),
    head: db.prepare('SELECT coalesce(max(id), 0) AS id FROM outbox'),
    cursor: db.prepare('SELECT position FROM relay_cursors WHERE name = ?').pluck(),
    // Compare-and-set: only from the position the relay read; a new cursor only where none is.
    advance: db.prepare('UPDATE relay_cursors SET position = ?, updated_at = ? WHERE name = ? AND position = ?'),
    create: db.prepare('INSERT INTO relay_cursors (name, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING'),
    // The oldest rows (by id, which follows time) that are old enough and every durable cursor has
    // passed (positions are ids; no cursor: age alone decides). Never the newest row: its id keeps
    // the next one from reusing a deleted id.
    prune: db.prepare(`DELETE FROM outbox WHERE id IN (
      SELECT id FROM outbox WHERE id < (SELECT max(id) FROM outbox)
        AND id <= coalesce((SELECT min(CAST(position AS INTEGER)) FROM relay_cursors), 9007199254740991)
      ORDER BY id LIMIT ?) AND created_at < ?`),
  };
  return {
    async readOutbox(after, limit) {
      const rows = q.page.all(idOf(after), limit) as OutboxRow[];
      const events = rows.map(toEvent);
      return { events, position: events.length === 0 ? after : (events[events.length - 1] as OutboxEvent).position };
    },
    async outboxHead() {
      return String((q.head.get() as { id: number }).id);
    },
    async relayCursor(name) {
      return (q.cursor.get(name) as string | undefined) ?? null;
    },
    advanceRelayCursor: (name, from, to) =>
      gc.write('advanceRelayCursor', () => {
        const moved = from === null ? q.create.run(name, to, Date.now()).changes : q.advance.run(to, Date.now(), name, from).changes;
        return moved === 1 ? ({ ok: true } as const) : ({ ok: false, stale: 'cursor' } as const);
      }),
    pruneOutbox: (before, limit) => gc.write('pruneOutbox', () => q.prune.run(limit, before).changes),
  };
}
