import type pg from 'pg';
import type { InventoryChanges, OutboxDraft, OutboxEvent, OutboxEventType, OutboxStore } from '../../ports/engine/index.js';
import { unexpected, type PgDb } from './db.js';

/**
 * Inserts an operation's outbox rows on its own connection, inside its transaction (one
 * statement for all of them). The xid and event id are the columns' defaults (schema.ts v5).
 */
export async function appendOutbox(c: pg.ClientBase, origin: string, now: number, drafts: readonly (OutboxDraft | null)[]): Promise<void> {
  const rows = drafts.filter((d): d is OutboxDraft => d !== null);
  if (rows.length === 0) return;
  await c.query({
    name: 'outbox-append',
    text: `INSERT INTO outbox (type, show_id, created_at, origin, data, changes)
      SELECT type, show_id, $1::bigint, $2::text, data::jsonb, changes::jsonb
      FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS t(type, show_id, data, changes, n) ORDER BY n`,
    values: [now, origin, rows.map((d) => d.type), rows.map((d) => d.showId), rows.map((d) => JSON.stringify(d.data)), rows.map((d) => (d.changes === null ? null : JSON.stringify(d.changes)))],
  });
}

interface OutboxRow { id: string; xid: string; event_id: string; type: OutboxEventType; show_id: string | null; created_at: string; origin: string; data: Record<string, unknown>; changes: InventoryChanges | null }

/** A position is "<xid>:<id>"; anything else (or null) reads from the start. */
function parse(position: string | null): { xid: string; id: string } {
  const match = position === null ? null : /^(\d{1,20}):(\d{1,19})$/.exec(position);
  return match === null ? { xid: '0', id: '0' } : { xid: match[1] as string, id: match[2] as string };
}

const toEvent = (r: OutboxRow): OutboxEvent => ({
  position: `${r.xid}:${r.id}`, eventId: r.event_id, type: r.type, showId: r.show_id, createdAt: Number(r.created_at), origin: r.origin, data: r.data, changes: r.changes,
});

/**
 * The outbox's reads and the relay cursors on PostgreSQL (see schema.ts v5 for why positions are
 * (xid, id) and why a reader stops below its snapshot's xmin). A row committed by a transaction
 * that started before the reader's xmin but commits later cannot exist: xmin is the oldest
 * transaction still running, so every xid below it has committed or aborted for good. The order is
 * commit order where it matters: a change that waited for another's row lock, or started after it
 * committed, got its xid later. Two unrelated transactions may appear in either order; seat
 * changes carry versions and stock changes are deltas, so read models do not care.
 */
export function pgOutbox(db: PgDb): OutboxStore {
  return {
    async readOutbox(after, limit) {
      const from = parse(after);
      const { rows } = await db.query<OutboxRow>(
        `SELECT id, xid::text AS xid, event_id, type, show_id, created_at, origin, data, changes FROM outbox
         WHERE xid < pg_snapshot_xmin(pg_current_snapshot()) AND (xid, id) > ($1::xid8, $2::bigint)
         ORDER BY xid, id LIMIT $3`, [from.xid, from.id, limit]);
      const events = rows.map(toEvent);
      return { events, position: events.length === 0 ? after : (events[events.length - 1] as OutboxEvent).position };
    },
    // Every row from a transaction older than the xmin is before this position; any row from a
    // transaction at or after it sorts after it (ids start at 1).
    async outboxHead() {
      const { rows } = await db.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
      return `${(rows[0] as { xmin: string }).xmin}:0`;
    },
    async relayCursor(name) {
      const { rows } = await db.query<{ position: string }>('SELECT position FROM relay_cursors WHERE name = $1', [name]);
      return rows[0]?.position ?? null;
    },
    // Compare-and-set on the position the relay read: of two relays that read the same cursor,
    // one moves it; the other is told stale and re-reads.
    async advanceRelayCursor(name, from, to) {
      const result = await db.statement('advanceRelayCursor', (c) => (from === null
        ? c.query('INSERT INTO relay_cursors (name, position, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, to, Date.now()])
        : c.query('UPDATE relay_cursors SET position = $2, updated_at = $4 WHERE name = $1 AND position = $3', [name, to, from, Date.now()])));
      if (!result.ok) return unexpected('advanceRelayCursor', result);
      return result.value.rowCount === 1 ? { ok: true } : { ok: false, stale: 'cursor' };
    },
    // The oldest rows (position order, which follows time) that every durable cursor has passed and
    // are older than `before`; with no cursor, age alone. A cursor not in our form (never written
    // by the relay) holds every row rather than none.
    async pruneOutbox(before, limit) {
      const result = await db.statement('pruneOutbox', (c) => c.query(
        `DELETE FROM outbox WHERE id IN (
           SELECT o.id FROM outbox o WHERE o.xid < pg_snapshot_xmin(pg_current_snapshot())
             AND NOT EXISTS (SELECT 1 FROM relay_cursors r
               WHERE r.position !~ '^[0-9]+:[0-9]+$'
                 OR (o.xid, o.id) > (split_part(r.position, ':', 1)::xid8, split_part(r.position, ':', 2)::bigint))
           ORDER BY o.xid, o.id LIMIT $2) AND created_at < $1`, [before, limit]));
      if (!result.ok) return unexpected('pruneOutbox', result);
      return result.value.rowCount ?? 0;
    },
  };
}
