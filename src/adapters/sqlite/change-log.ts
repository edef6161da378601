import type { Database as Db } from 'better-sqlite3';
import type { AuditEntityType, AuditEntry, AuditEntryDraft, ChangeLogStore } from '../../ports/engine/index.js';

/** Writes an operation's audit entry; called inside the operation's unit, after its change took. */
export interface ChangeLogWriter {
  append(draft: AuditEntryDraft | null | undefined): void;
}

interface AuditRow {
  entry_id: string; at: number; actor_id: string; actor_role: string; action: string; entity_type: AuditEntityType; entity_id: string;
  show_id: string | null; before: string | null; after: string | null;
}

const json = (v: Readonly<Record<string, unknown>> | null): string | null => (v === null ? null : JSON.stringify(v));
const parsed = (v: string | null): Record<string, unknown> | null => (v === null ? null : (JSON.parse(v) as Record<string, unknown>));

export function sqliteChangeLogWriter(db: Db): ChangeLogWriter {
  const insert = db.prepare(`INSERT INTO audit_log (entry_id, at, actor_id, actor_role, action, entity_type, entity_id, show_id, before, after)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    append(d) {
      if (d === null || d === undefined) return;
      insert.run(d.entryId, d.at, d.actorId, d.actorRole, d.action, d.entityType, d.entityId, d.showId, json(d.before), json(d.after));
    },
  };
}

/** The audit trail's reads: every filter optional, newest first, bounded by the caller's limit. */
export function sqliteChangeLog(db: Db): ChangeLogStore {
  const list = db.prepare(`SELECT * FROM audit_log
    WHERE (@actorId IS NULL OR actor_id = @actorId) AND (@entityType IS NULL OR entity_type = @entityType)
      AND (@entityId IS NULL OR entity_id = @entityId) AND (@withShowOnly = 0 OR show_id IS NOT NULL)
      AND (@from IS NULL OR at >= @from) AND (@until IS NULL OR at < @until)
    ORDER BY at DESC, entry_id DESC LIMIT @limit OFFSET @offset`);
  return {
    listAuditEntries: async (query) => (list.all({
      actorId: query.actorId ?? null, entityType: query.entityType ?? null, entityId: query.entityId ?? null, withShowOnly: query.withShowOnly === true ? 1 : 0,
      from: query.from ?? null, until: query.until ?? null, limit: query.limit, offset: query.offset,
    }) as AuditRow[]).map((r): AuditEntry => ({
      entryId: r.entry_id, at: r.at, actorId: r.actor_id, actorRole: r.actor_role, action: r.action, entityType: r.entity_type, entityId: r.entity_id,
      showId: r.show_id, before: parsed(r.before), after: parsed(r.after),
    })),
  };
}
