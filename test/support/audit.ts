import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PaymentProvider } from '../../src/ports/payment-provider.js';
import type { TestDatabase } from './backend.js';

/**
 * What the auditor reads about one show: plain data, the same from every backend. The store port's
 * audit read answers it; the invariants (test/support/invariants.ts) are computed from it here, in
 * the tests, so an adapter cannot vouch for itself.
 */
export type AuditLine = { readonly kind: 'SEATS'; readonly sectionId: string; readonly seatIds: readonly string[] } | { readonly kind: 'UNITS'; readonly sectionId: string; readonly quantity: number };

export interface ShowAudit {
  readonly seats: readonly { seatId: string; sectionId: string; status: string }[];
  /** Every section; for counted ones `available` is what is left of `capacity`. */
  readonly sections: readonly { sectionId: string; kind: string; sellBy?: string; capacity: number; available: number }[];
  readonly holds: readonly { holdId: string; userId: string; status: string; expiresAt: number; lines: readonly AuditLine[] }[];
  readonly orders: readonly { orderId: string; holdId: string; userId: string; status: string; amountCents: number; lines: readonly AuditLine[] }[];
  readonly payments: readonly { paymentId: string; orderId: string; status: string; amountCents: number }[];
  readonly tickets: readonly { ticketId: string; orderId: string; sectionId?: string; seatId: string | null; status: string }[];
  /** The stored per-user unit counters of the show; absent when the store keeps none. */
  readonly userUnits?: readonly { userId: string; units: number }[];
}

/** Where the auditor reads: the node's own store when in-process, else the test database. */
export interface AuditSource {
  readonly database: TestDatabase;
  readonly store?: unknown;
  /** The payment provider that took part, to check that every charge it took is applied here. */
  readonly provider?: Pick<PaymentProvider, 'getPaymentStatus'> | null;
}

interface AuditingStore {
  audit(showId: string): Promise<ShowAudit | null>;
  close(): Promise<void>;
}

function auditingStore(store: unknown): AuditingStore | null {
  return typeof store === 'object' && store !== null && typeof (store as Partial<AuditingStore>).audit === 'function' ? (store as AuditingStore) : null;
}

async function auditThrough(store: AuditingStore, showId: string): Promise<ShowAudit> {
  const audit = await store.audit(showId);
  if (audit === null) throw new Error(`the store knows no show ${showId}`);
  return audit;
}

/**
 * Reads through the store port: the node's own store when in-process, else a store opened from
 * the same configuration the server was given (a child server's SQLite file or PostgreSQL schema).
 */
export async function readAudit(source: AuditSource, showId: string): Promise<ShowAudit> {
  const own = auditingStore(source.store);
  if (own !== null) return auditThrough(own, showId);
  const compose = (await import('../../src/compose.js')) as unknown as { openConfiguredStore?: (config: unknown) => Promise<unknown> };
  if (compose.openConfiguredStore !== undefined) {
    const { loadConfig } = await import('../../src/config.js');
    const opened = auditingStore(await compose.openConfiguredStore(loadConfig({ ...source.database.env, TICKETRUSH_DEMO: '0' })));
    if (opened !== null) {
      try {
        return await auditThrough(opened, showId);
      } finally {
        await opened.close();
      }
    }
  }
  return readLegacySqliteAudit(source.database, showId);
}

/**
 * Until the store port has its audit read: the pre-issue-13 SQLite schema, read from the file.
 * Goes away with the port's audit (issue 13: the auditor reads through a port).
 */
function readLegacySqliteAudit(database: TestDatabase, showId: string): ShowAudit {
  if (database.store !== 'sqlite') throw new Error('this store has no audit read yet');
  const file = join(database.dataDir, 'ticketrush.db');
  if (!existsSync(file)) throw new Error(`no database at ${file}`);
  const db = new Database(file, { readonly: true });
  try {
    const seatRows = db.prepare('SELECT seat_id, section, status FROM seats WHERE show_id = ?').all(showId) as { seat_id: string; section: string; status: string }[];
    const sectionOf = new Map(seatRows.map((s) => [s.seat_id, s.section]));
    const lines = (json: string): AuditLine[] => {
      const bySection = new Map<string, string[]>();
      for (const seatId of JSON.parse(json) as string[]) {
        const section = sectionOf.get(seatId) ?? '?';
        bySection.set(section, [...(bySection.get(section) ?? []), seatId]);
      }
      return [...bySection].map(([sectionId, seatIds]) => ({ kind: 'SEATS', sectionId, seatIds }));
    };
    const holds = (db.prepare('SELECT hold_id, user_id, status, expires_at, seat_ids FROM holds WHERE show_id = ?').all(showId) as { hold_id: string; user_id: string; status: string; expires_at: number; seat_ids: string }[])
      .map((h) => ({ holdId: h.hold_id, userId: h.user_id, status: h.status, expiresAt: h.expires_at, lines: lines(h.seat_ids) }));
    const orders = (db.prepare('SELECT order_id, hold_id, user_id, status, amount_cents, seat_ids FROM orders WHERE show_id = ?').all(showId) as { order_id: string; hold_id: string; user_id: string; status: string; amount_cents: number; seat_ids: string }[])
      .map((o) => ({ orderId: o.order_id, holdId: o.hold_id, userId: o.user_id, status: o.status, amountCents: o.amount_cents, lines: lines(o.seat_ids) }));
    const payments = (db.prepare('SELECT p.payment_id, p.order_id, p.status, p.amount_cents FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE o.show_id = ?').all(showId) as { payment_id: string; order_id: string; status: string; amount_cents: number }[])
      .map((p) => ({ paymentId: p.payment_id, orderId: p.order_id, status: p.status, amountCents: p.amount_cents }));
    const tickets = (db.prepare('SELECT ticket_id, order_id, seat_id, status FROM tickets WHERE show_id = ?').all(showId) as { ticket_id: string; order_id: string; seat_id: string; status: string }[])
      .map((k) => ({ ticketId: k.ticket_id, orderId: k.order_id, seatId: k.seat_id, sectionId: sectionOf.get(k.seat_id) ?? '?', status: k.status }));
    const sectionIds = [...new Set(seatRows.map((s) => s.section))];
    const sections = sectionIds.map((sectionId) => {
      const seats = seatRows.filter((s) => s.section === sectionId);
      return { sectionId, kind: 'SEATED', sellBy: 'SEAT', capacity: seats.length, available: seats.filter((s) => s.status === 'AVAILABLE').length };
    });
    return { seats: seatRows.map((s) => ({ seatId: s.seat_id, sectionId: s.section, status: s.status })), sections, holds, orders, payments, tickets };
  } finally {
    db.close();
  }
}
