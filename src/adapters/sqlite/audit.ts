import type Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import type { ReservationLine, SeatMapSpec } from '../../domain/index.js';
import type { AuditStore, PendingAudit, ShowAudit, StuckReading } from '../../ports/engine/index.js';
import * as records from './records.js';

/** The tickets of a show's PENDING refunds (few at any moment: the partial index refunds_pending keeps them apart). */
const pendingRefundsQuery = (db: Db): Database.Statement => db.prepare("SELECT ticket_ids FROM refunds WHERE status = 'PENDING' AND show_id = ? ORDER BY refund_id");
const pendingRefundTicketIds = (statement: Database.Statement, showId: string): string[] =>
  (statement.all(showId) as { ticket_ids: string }[]).flatMap((r) => JSON.parse(r.ticket_ids) as string[]);

/** The show's orders that gave tickets up by exchange (through the orders of the show: exchanges are indexed by old order). */
const exchangedOutQuery = (db: Db): Database.Statement =>
  db.prepare("SELECT DISTINCT x.old_order_id FROM orders o JOIN exchanges x ON x.old_order_id = o.order_id AND x.status = 'COMPLETED' WHERE o.show_id = ? ORDER BY x.old_order_id").pluck();

/** The plain-data reads of one show (synchronous, so a caller can run them in one read transaction). */
export function sqliteShowAudit(db: Db, linesOf: (holdId: string) => ReservationLine[]): (showId: string) => ShowAudit | null {
  const q = {
    show: db.prepare('SELECT seat_map FROM shows WHERE show_id = ?'),
    seats: db.prepare('SELECT seat_id, section, status, hold_id FROM seats WHERE show_id = ? ORDER BY seat_id'),
    sections: db.prepare('SELECT * FROM sections WHERE show_id = ? ORDER BY position'),
    holds: db.prepare('SELECT * FROM holds WHERE show_id = ? ORDER BY hold_id'),
    orders: db.prepare('SELECT * FROM orders WHERE show_id = ? ORDER BY order_id'),
    payments: db.prepare('SELECT p.* FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE o.show_id = ? ORDER BY p.payment_id'),
    tickets: db.prepare('SELECT * FROM tickets WHERE show_id = ? ORDER BY ticket_id'),
    units: db.prepare('SELECT user_id, units FROM user_show_units WHERE show_id = ? ORDER BY user_id'),
    pendingRefunds: pendingRefundsQuery(db),
    exchangedOut: exchangedOutQuery(db),
  };
  return (showId) => {
    const show = q.show.get(showId) as { seat_map: string } | undefined;
    if (show === undefined) return null;
    return {
      seatMap: JSON.parse(show.seat_map) as SeatMapSpec,
      seats: (q.seats.all(showId) as records.SeatRow[]).map((s) => ({ seatId: s.seat_id, sectionId: s.section, status: s.status, holdId: s.hold_id })),
      sections: (q.sections.all(showId) as records.SectionRow[]).map((s) => ({
        sectionId: s.section_id, kind: s.kind, sellBy: s.sell_by, capacity: s.capacity, available: s.available,
      })),
      holds: (q.holds.all(showId) as records.HoldRow[]).map((h) => ({
        holdId: h.hold_id, userId: h.user_id, status: h.status, expiresAt: h.expires_at, lines: linesOf(h.hold_id),
      })),
      orders: (q.orders.all(showId) as records.OrderRow[]).map((o) => ({
        orderId: o.order_id, holdId: o.hold_id, userId: o.user_id, status: o.status, amountCents: o.amount_cents, updatedAt: o.updated_at, lines: linesOf(o.hold_id),
      })),
      payments: (q.payments.all(showId) as records.PaymentRow[]).map((p) => ({ paymentId: p.payment_id, orderId: p.order_id, status: p.status, amountCents: p.amount_cents, updatedAt: p.updated_at })),
      tickets: (q.tickets.all(showId) as records.TicketRow[]).map((t) => ({
        ticketId: t.ticket_id, orderId: t.order_id, sectionId: t.section_id, seatId: t.seat_id, status: t.status,
      })),
      userUnits: (q.units.all(showId) as { user_id: string; units: number }[]).map((u) => ({ userId: u.user_id, units: u.units })),
      pendingRefundTicketIds: pendingRefundTicketIds(q.pendingRefunds, showId),
      exchangedOutOrderIds: q.exchangedOut.all(showId) as string[],
    };
  };
}


/** Rows per read of the paged audit: about 10 ms of work, then the event loop gets a turn. */
const auditPageRows = 2_000;

const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The same records as sqliteShowAudit, read in keyset pages with the event loop given a turn
 * between pages, all inside one read transaction (WAL: a reader's snapshot holds while the
 * writer goes on), so a big show is of one moment and never stalls the process it runs in. For a
 * connection of its own (the auditor's read-only one): nothing else may use it meanwhile.
 */
export function sqliteShowAuditPaged(db: Db, linesOf: (holdId: string) => ReservationLine[]): (showId: string) => Promise<ShowAudit | null> {
  const q = {
    show: db.prepare('SELECT seat_map FROM shows WHERE show_id = ?'),
    seats: db.prepare('SELECT seat_id, section, status, hold_id FROM seats WHERE show_id = ? AND seat_id > ? ORDER BY seat_id LIMIT ?'),
    sections: db.prepare('SELECT * FROM sections WHERE show_id = ? ORDER BY position'),
    holds: db.prepare('SELECT * FROM holds WHERE show_id = ? AND hold_id > ? ORDER BY hold_id LIMIT ?'),
    orders: db.prepare('SELECT * FROM orders WHERE show_id = ? AND order_id > ? ORDER BY order_id LIMIT ?'),
    payments: db.prepare('SELECT p.* FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE o.show_id = ? AND p.payment_id > ? ORDER BY p.payment_id LIMIT ?'),
    tickets: db.prepare('SELECT * FROM tickets WHERE show_id = ? AND ticket_id > ? ORDER BY ticket_id LIMIT ?'),
    units: db.prepare('SELECT user_id, units FROM user_show_units WHERE show_id = ? AND user_id > ? ORDER BY user_id LIMIT ?'),
    pendingRefunds: pendingRefundsQuery(db),
    exchangedOut: exchangedOutQuery(db),
  };
  async function paged<R, T>(statement: Database.Statement, showId: string, keyOf: (row: R) => string, map: (row: R) => T): Promise<T[]> {
    const all: T[] = [];
    for (let after = ''; ;) {
      const rows = statement.all(showId, after, auditPageRows) as R[];
      all.push(...rows.map(map));
      if (rows.length < auditPageRows) return all;
      after = keyOf(rows[rows.length - 1] as R);
      await yieldTurn();
    }
  }
  return async (showId) => {
    db.exec('BEGIN');
    try {
      const show = q.show.get(showId) as { seat_map: string } | undefined;
      if (show === undefined) return null;
      const seats = await paged(q.seats, showId, (s: records.SeatRow) => s.seat_id, (s) => ({ seatId: s.seat_id, sectionId: s.section, status: s.status, holdId: s.hold_id }));
      const sections = (q.sections.all(showId) as records.SectionRow[]).map((s) => ({ sectionId: s.section_id, kind: s.kind, sellBy: s.sell_by, capacity: s.capacity, available: s.available }));
      const holds = await paged(q.holds, showId, (h: records.HoldRow) => h.hold_id, (h) => ({ holdId: h.hold_id, userId: h.user_id, status: h.status, expiresAt: h.expires_at, lines: linesOf(h.hold_id) }));
      const orders = await paged(q.orders, showId, (o: records.OrderRow) => o.order_id, (o) => ({
        orderId: o.order_id, holdId: o.hold_id, userId: o.user_id, status: o.status, amountCents: o.amount_cents, updatedAt: o.updated_at, lines: linesOf(o.hold_id),
      }));
      const payments = await paged(q.payments, showId, (p: records.PaymentRow) => p.payment_id, (p) => ({ paymentId: p.payment_id, orderId: p.order_id, status: p.status, amountCents: p.amount_cents, updatedAt: p.updated_at }));
      const tickets = await paged(q.tickets, showId, (t: records.TicketRow) => t.ticket_id, (t) => ({ ticketId: t.ticket_id, orderId: t.order_id, sectionId: t.section_id, seatId: t.seat_id, status: t.status }));
      const userUnits = await paged(q.units, showId, (u: { user_id: string; units: number }) => u.user_id, (u) => ({ userId: u.user_id, units: u.units }));
      return {
        seatMap: JSON.parse(show.seat_map) as SeatMapSpec, seats, sections, holds, orders, payments, tickets, userUnits,
        pendingRefundTicketIds: pendingRefundTicketIds(q.pendingRefunds, showId),
        exchangedOutOrderIds: q.exchangedOut.all(showId) as string[],
      };
    } finally {
      db.exec('COMMIT');
    }
  };
}

/** A hold's lines, for a connection that has no Shared (the auditor's read-only one). */
export function sqliteLinesOf(db: Db): (holdId: string) => ReservationLine[] {
  const lines = db.prepare('SELECT section_id, seat_id, quantity FROM hold_lines WHERE hold_id = ? ORDER BY line_no');
  return (holdId) => records.toLines(lines.all(holdId) as records.HoldLineRow[]);
}

/** Show ids in id order after a cursor: the auditor's pages over shows (published ones only). */
export function sqliteAuditShowIds(db: Db): (after: string | null, limit: number) => string[] {
  const page = db.prepare('SELECT show_id FROM shows WHERE show_id > ? AND ready = 1 ORDER BY show_id LIMIT ?').pluck();
  return (after, limit) => page.all(after ?? '', limit) as string[];
}

/**
 * Plain-data reads for the auditors: everything of one show (in one read transaction, so the
 * lists are of one moment), store-wide work left to settle, and what is stuck for the gauges.
 */
export function sqliteAudit(db: Db, linesOf: (holdId: string) => ReservationLine[]): AuditStore {
  const readShow = db.transaction(sqliteShowAudit(db, linesOf));
  const showIds = sqliteAuditShowIds(db);
  const q = {
    pending: db.prepare(`SELECT
        (SELECT count(*) FROM orders WHERE status = 'PAID') AS paidOrders,
        (SELECT count(*) FROM payments WHERE status = 'REFUND_PENDING') AS refundPending,
        (SELECT count(*) FROM holds WHERE status = 'ACTIVE' AND expires_at <= ?) AS overdueActiveHolds,
        (SELECT count(*) FROM payments WHERE status = 'PENDING') AS pendingPayments`),
    // Each figure walks an index range (orders_by_status, payments_by_status, holds_active_by_expiry), capped by LIMIT.
    stuck: db.prepare(`SELECT
        (SELECT count(*) FROM (SELECT 1 FROM orders WHERE status = 'PENDING_PAY' LIMIT @cap)) AS pendingPay,
        (SELECT min(updated_at) FROM orders WHERE status = 'PENDING_PAY') AS pendingPayOldest,
        (SELECT count(*) FROM (SELECT 1 FROM orders WHERE status = 'PAID' LIMIT @cap)) AS paid,
        (SELECT min(updated_at) FROM orders WHERE status = 'PAID') AS paidOldest,
        (SELECT count(*) FROM (SELECT 1 FROM holds WHERE status = 'ACTIVE' AND expires_at <= @now LIMIT @cap)) AS overdue,
        (SELECT min(expires_at) FROM holds WHERE status = 'ACTIVE' AND expires_at <= @now) AS overdueOldest,
        (SELECT count(*) FROM (SELECT 1 FROM payments WHERE status = 'PENDING' LIMIT @cap)) AS pendingPayments,
        (SELECT min(updated_at) FROM payments WHERE status = 'PENDING') AS pendingPaymentsOldest`),
  };
  return {
    audit: async (showId) => readShow.deferred(showId),
    auditPending: async (now): Promise<PendingAudit> => q.pending.get(now) as PendingAudit,
    auditShowIds: async (after, limit) => showIds(after, limit),
    async stuckFigures(now, countMax): Promise<StuckReading> {
      const r = q.stuck.get({ now, cap: countMax }) as Record<string, number | null>;
      const figure = (count: string, oldest: string) => ({ count: r[count] ?? 0, oldest: r[oldest] ?? null });
      return {
        pendingPay: figure('pendingPay', 'pendingPayOldest'),
        paidNotTicketed: figure('paid', 'paidOldest'),
        overdueHolds: figure('overdue', 'overdueOldest'),
        pendingPayments: figure('pendingPayments', 'pendingPaymentsOldest'),
      };
    },
  };
}
