import type pg from 'pg';
import type { AuditEntityType, AuditEntry, AuditEntryDraft, ChangeLogStore } from '../../ports/engine/index.js';
import type { PgDb } from './db.js';

/** Inserts an operation's audit entry on its own connection, inside its transaction, after its change took. */
export async function appendAuditEntry(c: pg.ClientBase, d: AuditEntryDraft | null | undefined): Promise<void> {
  if (d === null || d === undefined) return;
  await c.query({
    name: 'audit-log-append',
    text: `INSERT INTO audit_log (entry_id, at, actor_id, actor_role, action, entity_type, entity_id, show_id, before, after)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb)`,
    values: [d.entryId, d.at, d.actorId, d.actorRole, d.action, d.entityType, d.entityId, d.showId,
      d.before === null ? null : JSON.stringify(d.before), d.after === null ? null : JSON.stringify(d.after)],
  });
}

interface AuditRow {
  entry_id: string; at: string; actor_id: string; actor_role: string; action: string; entity_type: AuditEntityType; entity_id: string;
  show_id: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null;
}

/** The audit trail's reads: every filter optional, newest first, bounded by the caller's limit. */
export function pgChangeLog(db: PgDb): ChangeLogStore {
  return {
    async listAuditEntries(query) {
      const { rows } = await db.query<AuditRow>(
        `SELECT * FROM audit_log
         WHERE ($1::text IS NULL OR actor_id = $1) AND ($2::text IS NULL OR entity_type = $2) AND ($3::text IS NULL OR entity_id = $3)
           AND (NOT $4::boolean OR show_id IS NOT NULL) AND ($5::bigint IS NULL OR at >= $5) AND ($6::bigint IS NULL OR at < $6)
         ORDER BY at DESC, entry_id COLLATE "C" DESC LIMIT $7 OFFSET $8`,
        [query.actorId ?? null, query.entityType ?? null, query.entityId ?? null, query.withShowOnly === true, query.from ?? null, query.until ?? null, query.limit, query.offset]);
      return rows.map((r): AuditEntry => ({
        entryId: r.entry_id, at: Number(r.at), actorId: r.actor_id, actorRole: r.actor_role, action: r.action, entityType: r.entity_type, entityId: r.entity_id,
        showId: r.show_id, before: r.before, after: r.after,
      }));
    },
  };
}
