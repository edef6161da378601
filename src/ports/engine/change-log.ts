/**
 * The audit trail of organizer and admin changes (issue 26 item 5): who changed what, when, with
 * the values before and after. Not to be confused with audit.ts (the inventory auditor's view).
 *
 * An entry is written by the very store operation that makes the change, in its transaction: the
 * operation takes an `AuditEntryDraft` (as operations take outbox drafts) and inserts it only
 * when the change commits, so a refused or stale change leaves no entry and a committed change
 * never lacks one. Wiring a new change is one line at its use case (`auditDraft(...)`) plus
 * the draft passed through its operation.
 */
export type AuditEntityType =
  | 'show'
  | 'flash_sale'
  | 'code_pool'
  | 'bargain'
  | 'user'
  | 'webhook'
  // Kinds the money and rush issues add (refunds by an organizer, blocklist, cancellation, discount codes, waiting room).
  | 'order'
  | 'blocklist'
  | 'discount'
  | 'waiting_room';

export const auditEntityTypes: readonly AuditEntityType[] = ['show', 'flash_sale', 'code_pool', 'bargain', 'user', 'webhook', 'order', 'blocklist', 'discount', 'waiting_room'];

export interface AuditEntryDraft {
  readonly entryId: string;
  /** Who: the acting user's id and role at the time. */
  readonly actorId: string;
  readonly actorRole: string;
  /** What, as `<entity>.<verb>`: 'show.created', 'show.edited', 'user.role_changed', 'webhook.deleted', ... */
  readonly action: string;
  readonly entityType: AuditEntityType;
  readonly entityId: string;
  /** The show the entity belongs to (an organizer's view filters on it); null for users and webhooks. */
  readonly showId: string | null;
  /** The values before and after (null: did not exist / no longer exists). Small plain JSON. */
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
  /** When (epoch ms, the application's clock). */
  readonly at: number;
}

export type AuditEntry = AuditEntryDraft;

export interface AuditLogQuery {
  readonly actorId?: string;
  readonly entityType?: AuditEntityType;
  readonly entityId?: string;
  /** Only entries with a show (the organizer's view). */
  readonly withShowOnly?: boolean;
  /** Time range, inclusive from, exclusive until (epoch ms). */
  readonly from?: number;
  readonly until?: number;
  readonly limit: number;
  readonly offset: number;
}

export interface ChangeLogStore {
  /** Newest first (time, then entry id), filtered; `limit` <= limits.listPageSizeMax. */
  listAuditEntries(query: AuditLogQuery): Promise<readonly AuditEntry[]>;
}
