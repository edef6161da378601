import { limits } from '../domain/index.js';
import type { AuditEntityType, AuditEntry, AuditEntryDraft, AuditLogQuery } from '../ports/engine/index.js';
import type { AppContext } from './context.js';

export { auditEntityTypes } from '../ports/engine/index.js';

/** Who makes an organizer or admin change (from the bearer token, with the role stored now). */
export interface Actor {
  readonly userId: string;
  readonly role: string;
}

/** What changed: the entity, and its values before and after (null: it did not exist / no longer does). */
export interface AuditChange {
  readonly action: string;
  readonly entityType: AuditEntityType;
  readonly entityId: string;
  readonly showId: string | null;
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
}

/**
 * The audit-trail entry of a change, to hand to the store operation that makes it (the operation
 * writes it in its own transaction, and only when the change commits). No actor (a start-up chore,
 * the demo show, a test calling the use case directly): no entry.
 */
export function auditDraft(ctx: Pick<AppContext, 'ids' | 'clock'>, actor: Actor | null | undefined, change: AuditChange): AuditEntryDraft | null {
  if (actor === null || actor === undefined) return null;
  return { entryId: ctx.ids.newId('auditEntry'), actorId: actor.userId, actorRole: actor.role, at: ctx.clock.now(), ...change };
}

/** A campaign's (or show's) offline switch moved: the change is named for it, else an edit. */
export function campaignAction(entity: string, before: { readonly offline: boolean }, after: { readonly offline: boolean }): string {
  if (!before.offline && after.offline) return `${entity}.taken_offline`;
  if (before.offline && !after.offline) return `${entity}.published`;
  return `${entity}.edited`;
}

export interface AuditLogFilter {
  readonly actorId?: string;
  readonly entityType?: AuditEntityType;
  readonly entityId?: string;
  readonly from?: number;
  readonly until?: number;
  readonly limit: number;
  readonly offset: number;
}

/** The deepest page anyone may ask for: OFFSET reads and drops every row before it. */
export const auditLogOffsetMax = 10_000;

/**
 * The audit log as `viewer` may see it: an ADMIN every entry; an ORGANIZER the entries of shows
 * and their campaigns (not roles or webhooks, which are an admin's business). Shows have no owner
 * yet: when they get one, this is where an organizer's view narrows to their own shows.
 */
export async function listAuditLog(ctx: AppContext, viewer: Actor, filter: AuditLogFilter): Promise<{ entries: readonly (AuditEntry & { actorName: string | null })[]; more: boolean }> {
  const limit = Math.min(filter.limit, limits.listPageSizeMax);
  const query: AuditLogQuery = { ...filter, limit: limit + 1, offset: Math.min(filter.offset, auditLogOffsetMax), withShowOnly: viewer.role !== 'ADMIN' };
  const found = await ctx.store.listAuditEntries(query);
  const entries = found.slice(0, limit);
  // Who, by name (issue 35 item 9): one read per actor on the page (a page holds few, usually one or two).
  const actorIds = [...new Set(entries.map((e) => e.actorId))];
  const names = new Map(await Promise.all(actorIds.map(async (id) => [id, (await ctx.store.getUser(id))?.username ?? null] as const)));
  return { entries: entries.map((e) => ({ ...e, actorName: names.get(e.actorId) ?? null })), more: found.length > limit };
}
