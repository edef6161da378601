import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { eventually } from './wait.js';

/**
 * What an auditor checks in the database after a rush: settles first (no PAID order left
 * unticketed, no refund pending, no overdue hold still ACTIVE), then asserts that no seat was sold
 * twice, seat counts add up, every ticketed order has one ticket per seat, and no money was lost.
 * Returns the seat counts by status.
 */
export async function expectSettledAndConsistent(dbFile: string, showId: string, capacity: number, settleMs = 20_000): Promise<Record<string, number>> {
  const db = new Database(dbFile, { readonly: true });
  // The sandbox provider's own ledger, when it took part: what the card holders were really charged.
  const ledgerFile = join(dirname(dbFile), 'sandbox-provider.db');
  const withLedger = existsSync(ledgerFile);
  if (withLedger) db.prepare('ATTACH DATABASE ? AS ledger').run(ledgerFile);
  const undelivered = withLedger
    ? `(SELECT COUNT(*) FROM ledger.sandbox_payments l JOIN payments p ON p.payment_id = l.payment_id WHERE l.status <> 'PENDING' AND p.status = 'PENDING')`
    : '0';
  try {
    await eventually(async () => {
      const transient = db.prepare(`
        SELECT (SELECT COUNT(*) FROM orders WHERE status = 'PAID')
             + (SELECT COUNT(*) FROM payments WHERE status = 'REFUND_PENDING')
             + (SELECT COUNT(*) FROM holds WHERE status = 'ACTIVE' AND expires_at <= ?)
             + ${undelivered} AS n`).get(Date.now()) as { n: number };
      return transient.n === 0 ? true : undefined;
    }, settleMs, 'paid orders ticketed, refunds done, overdue holds freed, provider verdicts applied');
    if (withLedger) {
      // Every charge the provider took is applied: sold, or refunded at the provider and here.
      const unapplied = db.prepare(`
        SELECT l.payment_id, l.status, l.refunded, p.status AS ours FROM ledger.sandbox_payments l JOIN payments p ON p.payment_id = l.payment_id
        WHERE (l.status = 'SUCCEEDED' AND NOT ((p.status = 'SUCCEEDED' AND l.refunded = 0) OR (p.status = 'REFUNDED' AND l.refunded = 1)))
           OR (l.status = 'FAILED' AND p.status <> 'FAILED')`).all();
      expect(unapplied).toEqual([]);
    }

    const rows = db.prepare('SELECT status, COUNT(*) AS n FROM seats WHERE show_id = ? GROUP BY status').all(showId) as { status: string; n: number }[];
    const counts: Record<string, number> = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    const count = (status: string) => counts[status] ?? 0;
    expect(count('AVAILABLE') + count('HELD') + count('SOLD')).toBe(capacity);

    const doubleTickets = db.prepare(`SELECT seat_id, COUNT(*) AS n FROM tickets WHERE show_id = ? AND status <> 'INVALID' GROUP BY seat_id HAVING n > 1`).all(showId);
    expect(doubleTickets).toEqual([]);
    const tickets = db.prepare('SELECT COUNT(*) AS n FROM tickets WHERE show_id = ?').get(showId) as { n: number };
    expect(tickets.n).toBe(count('SOLD'));

    const unticketed = db.prepare(`
      SELECT o.order_id FROM orders o WHERE o.status = 'TICKETED'
        AND (SELECT COUNT(*) FROM tickets k WHERE k.order_id = o.order_id) <> json_array_length(o.seat_ids)`).all();
    expect(unticketed).toEqual([]);

    // Money is never lost: every successful payment bought its seats or was refunded.
    const lostMoney = db.prepare(`
      SELECT p.payment_id FROM payments p JOIN orders o ON o.order_id = p.order_id
      WHERE p.status = 'SUCCEEDED' AND o.status NOT IN ('PAID', 'TICKETED')`).all();
    expect(lostMoney).toEqual([]);
    const refundedOrders = db.prepare(`SELECT COUNT(*) AS n FROM orders WHERE status = 'REFUNDED'`).get() as { n: number };
    const refundedPayments = db.prepare(`SELECT COUNT(*) AS n FROM payments WHERE status = 'REFUNDED'`).get() as { n: number };
    expect(refundedPayments.n).toBe(refundedOrders.n);
    return counts;
  } finally {
    db.close();
  }
}

/**
 * The in-memory seat map (what buyers see) agrees with the database. A provider callback may still
 * land between the two reads, so they are compared until they agree; a real divergence never does.
 */
export async function expectSeatMapMatchesStore(baseUrl: string, dbFile: string, showId: string): Promise<void> {
  const db = new Database(dbFile, { readonly: true });
  const differences = async (): Promise<string[]> => {
    const map = await (await fetch(`${baseUrl}/api/v1/shows/${showId}/seats`)).json() as { seats: { seatId: string; status: string }[] };
    const stored = new Map((db.prepare('SELECT seat_id, status FROM seats WHERE show_id = ?').all(showId) as { seat_id: string; status: string }[]).map((s) => [s.seat_id, s.status]));
    return map.seats.filter((s) => stored.get(s.seatId) !== s.status).map((s) => `${s.seatId}: map ${s.status}, store ${stored.get(s.seatId) ?? 'missing'}`);
  };
  try {
    await eventually(async () => ((await differences()).length === 0 ? true : undefined), 5_000, 'seat map in step with the store').catch(() => undefined);
    expect(await differences()).toEqual([]);
  } finally {
    db.close();
  }
}
