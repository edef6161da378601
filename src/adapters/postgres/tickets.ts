import { candidateRows, chooseBestAvailable, limits, type BestAvailableChoice, type SeatMapSpec, type SeatPosition, type Ticket } from '../../domain/index.js';
import { randomInt } from 'node:crypto';
import type pg from 'pg';
import { StoreBusyError, type Attendee, type DoorCounts, type IssueTicketsOutcome, type SeatChange, type TicketStore } from '../../ports/engine/index.js';
import { doorCountDelta, keyRangeEnd } from '../shared/door-counts.js';
import { FreeSeats } from '../shared/free-seats.js';
import { ticketCheckedIn, ticketsIssued } from '../shared/outbox-drafts.js';
import { appendOutbox } from './outbox.js';
import { unexpected, type PgDb } from './db.js';
import { firstWindowRows, readFreeRows } from './free-rows.js';
import { toOrder, toTicket, type OrderRow, type TicketRow } from './rows.js';
import { refuse, takeChosenSeats } from './stock.js';

/** Chosen seats lost to parallel issuers before issuing gives up with BUSY. */
const ticketSeatCollisionsMax = 64;
/** Bucket rows of a show's door counts: parallel issuers and scans update different rows, a read sums them. */
const doorCountBuckets = 8;

/**
 * Moves a show's door counts in the caller's transaction. Last statement of each operation, so the
 * bucket row's lock is held only until the commit that follows.
 */
export async function countDoor(c: pg.ClientBase, showId: string, admitting: number, checkedIn: number): Promise<void> {
  if (admitting === 0 && checkedIn === 0) return;
  await c.query(
    `INSERT INTO show_door_counts AS d (show_id, bucket, admitting, checked_in) VALUES ($1, $2, $3, $4)
     ON CONFLICT (show_id, bucket) DO UPDATE SET admitting = d.admitting + EXCLUDED.admitting, checked_in = d.checked_in + EXCLUDED.checked_in`,
    [showId, randomInt(doorCountBuckets), admitting, checkedIn]);
}
export function pgTickets(db: PgDb, origin: string): TicketStore {
  const free = new FreeSeats();
  return {
    // READ COMMITTED. The conditional UPDATE PAID -> TICKETED locks the order row: of two
    // issuers one wins, the other re-checks the committed status and answers stale. Seats of a
    // section sold by QUANTITY are picked now from its free seats nearest the point (below), locked
    // FOR UPDATE SKIP LOCKED so two orders being ticketed at once never pick the same seat (nor
    // wait on each other), and taken with the conditional update of claims. The partial unique index "one admitting
    // ticket per seat" is the storage's last word.
    async issueTickets(input) {
      const result = await db.tx('issueTickets', async (c) => {
        const { rows: orders } = await c.query<OrderRow>(
          "UPDATE orders SET status = 'TICKETED', updated_at = $2 WHERE order_id = $1 AND status = 'PAID' RETURNING *", [input.orderId, input.now]);
        const order = orders[0];
        if (order === undefined) return { ok: false, stale: 'order' } as const;
        const seatOf = new Map<number, string>();
        const changes: SeatChange[] = [];
        const unseated = input.tickets.map((t, i) => ({ t, i })).filter(({ t }) => t.seatId === null);
        if (unseated.length > 0) {
          const { rows: sections } = await c.query<{ section_id: string; kind: string }>(
            'SELECT section_id, kind FROM sections WHERE show_id = $1 AND section_id = ANY($2::text[])', [order.show_id, [...new Set(unseated.map(({ t }) => t.sectionId))]]);
          const seated = new Set(sections.filter((s) => s.kind === 'SEATED').map((s) => s.section_id));
          const { rows: shows } = await c.query<{ seat_map: string }>('SELECT seat_map FROM shows WHERE show_id = $1', [order.show_id]);
          const seatMap = JSON.parse((shows[0] as { seat_map: string }).seat_map) as SeatMapSpec;
          for (const sectionId of [...seated].sort()) {
            const drafts = unseated.filter(({ t }) => t.sectionId === sectionId);
            const request = {
              quantity: drafts.length, section: sectionId, adjacentOnly: false,
              ...(input.near !== undefined && input.near.section === sectionId ? { near: input.near } : {}),
            };
            // The section's rows nearest the point first, read a window at a time without locks
            // (free-rows.ts) until no unread row can hold a better choice: the cost grows with the
            // rows looked at, not with the section. Only the chosen seats are locked (SKIP LOCKED),
            // so parallel issuers of one section each get their own seats instead of one of them
            // locking the whole section; a seat lost to one of them is left out and the choice made again.
            const rows = candidateRows(seatMap, request);
            const seen: SeatPosition[] = [];
            const lost = new Set<string>();
            let read = 0;
            let step = firstWindowRows;
            await c.query('SAVEPOINT pick');
            let taken: SeatChange[] | null = null;
            let choice: BestAvailableChoice | null = null;
            for (let attempt = 0; taken === null;) {
              choice = read === 0 ? null : chooseBestAvailable(seatMap, lost.size === 0 ? seen : seen.filter((seat) => !lost.has(seat.seatId)), request);
              const next = rows[read];
              if (next !== undefined && (choice === null || choice.score > next.minDistance)) {
                const window = rows.slice(read, read + Math.min(step, limits.bestAvailableRowsMax));
                read += window.length;
                step *= 2;
                for (const seat of await readFreeRows(c, free, order.show_id, window)) seen.push(seat);
                continue;
              }
              if (choice === null) refuse<IssueTicketsOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS', sectionId });
              const take = await takeChosenSeats(c, order.show_id, order.hold_id, choice.seatIds, 'SOLD');
              if (take.ok) taken = take.seats;
              else {
                for (const id of take.lost) lost.add(id);
                if (++attempt > ticketSeatCollisionsMax) throw new StoreBusyError('issueTickets', 'seats picked for the tickets kept being taken');
              }
            }
            const picked = (choice as BestAvailableChoice).seatIds;
            changes.push(...taken);
            drafts.forEach(({ i }, k) => seatOf.set(i, picked[k] as string));
          }
        }
        const tickets: Ticket[] = input.tickets.map((t, i) => ({
          ticketId: t.ticketId, orderId: order.order_id, userId: order.user_id, showId: order.show_id, sectionId: t.sectionId,
          seatId: t.seatId ?? seatOf.get(i) ?? null, code: t.code, status: 'VALID', issuedAt: input.now, usedAt: null,
          checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null, paidCents: t.paidCents,
        }));
        await c.query(
          `INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at, buyer_key, paid_cents)
           SELECT id, $1, $2, $3, section_id, seat_id, n, code, 'VALID', $4, (SELECT username_key FROM users WHERE user_id = $2), paid
           FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) WITH ORDINALITY AS t(id, section_id, seat_id, code, paid, n)`,
          [order.order_id, order.user_id, order.show_id, input.now, tickets.map((t) => t.ticketId), tickets.map((t) => t.sectionId), tickets.map((t) => t.seatId), tickets.map((t) => t.code),
            input.tickets.map((t) => t.paidCents)]);
        await countDoor(c, order.show_id, tickets.length, 0);
        const inventory = { showId: order.show_id, seats: changes, stock: [] };
        await appendOutbox(c, origin, input.now, [ticketsIssued(toOrder(order), tickets, inventory)]);
        return { ok: true, order: toOrder(order), tickets, changes: inventory } as const;
      });
      if (result.ok) return result.value;
      // A seat that already has an admitting ticket: nothing was written.
      if (result.kind === 'unique' && result.constraint === 'tickets_one_per_seat') return { ok: false, stale: 'order' };
      return unexpected('issueTickets', result);
    },

    // One compare-and-set UPDATE on the expected status: of two scans one admits; the winner
    // moves the door counts in the same transaction.
    async checkIn({ ticket, expectedStatus }) {
      const result = await db.tx('checkIn', async (c) => {
        const { rows } = await c.query<TicketRow>(
          `UPDATE tickets SET status = $3, used_at = $4, checkin_nonce = $5, checkin_by = $6, checkin_gate = $7, checkin_device = $8
           WHERE ticket_id = $1 AND status = $2 RETURNING *`,
          [ticket.ticketId, expectedStatus, ticket.status, ticket.usedAt, ticket.checkInNonce, ticket.checkedInBy, ticket.checkInGate, ticket.checkInDevice]);
        const row = rows[0];
        if (row === undefined) return null;
        const delta = doorCountDelta(expectedStatus, ticket.status);
        await countDoor(c, row.show_id, delta.admitting, delta.checkedIn);
        await appendOutbox(c, origin, ticket.usedAt ?? Date.now(), [ticketCheckedIn(toTicket(row))]);
        return row;
      });
      if (!result.ok) return unexpected('checkIn', result);
      return result.value === null ? { ok: false, stale: 'ticket' } : { ok: true, ticket: toTicket(result.value) };
    },

    async getTicket(ticketId) {
      const { rows } = await db.query<TicketRow>('SELECT * FROM tickets WHERE ticket_id = $1', [ticketId]);
      return rows[0] === undefined ? null : toTicket(rows[0]);
    },
    async ticketsByOrder(orderId) {
      const { rows } = await db.query<TicketRow>('SELECT * FROM tickets WHERE order_id = $1 ORDER BY seat_id COLLATE "C" NULLS LAST, ticket_id COLLATE "C"', [orderId]);
      return rows.map(toTicket);
    },
    async revokedTicketIds(showId, limit) {
      const { rows } = await db.query<{ ticket_id: string }>(
        `SELECT ticket_id FROM tickets WHERE show_id = $1 AND status = 'INVALID' ORDER BY ticket_id COLLATE "C" LIMIT $2`, [showId, limit]);
      return rows.map((r) => r.ticket_id);
    },
    async ticketByCode(showId, code) {
      const { rows } = await db.query<TicketRow>('SELECT * FROM tickets WHERE show_id = $1 AND code = $2', [showId, code]);
      return rows[0] === undefined ? null : toTicket(rows[0]);
    },
    async doorCounts(showId): Promise<DoorCounts> {
      const { rows } = await db.query<{ admitting: string | null; checked_in: string | null }>(
        'SELECT sum(admitting) AS admitting, sum(checked_in) AS checked_in FROM show_door_counts WHERE show_id = $1', [showId]);
      return { admitting: Number(rows[0]?.admitting ?? 0), checkedIn: Number(rows[0]?.checked_in ?? 0) };
    },
    // A range of tickets_attendees (its "C" collation compares code points, as keyRangeEnd does).
    async attendeesByName(input): Promise<Attendee[]> {
      const end = keyRangeEnd(input.keyPrefix);
      const { rows } = await db.query<TicketRow & { username: string }>(
        `SELECT t.*, u.username FROM tickets t JOIN users u ON u.user_id = t.user_id
         WHERE t.show_id = $1 AND t.buyer_key COLLATE "C" >= $2 AND ($3::text IS NULL OR t.buyer_key COLLATE "C" < $3::text)
           AND ($4::text IS NULL OR t.ticket_id <> $4::text)
         ORDER BY t.buyer_key COLLATE "C", t.order_id COLLATE "C", t.seq LIMIT $5 OFFSET $6`,
        [input.showId, input.keyPrefix, end, input.excludeTicketId, input.limit, input.offset]);
      return rows.map((row) => ({ ticket: toTicket(row), username: row.username }));
    },
    async ticketsByUser(userId, page) {
      const { rows } = await db.query<TicketRow>('SELECT * FROM tickets WHERE user_id = $1 ORDER BY issued_at DESC, ticket_id COLLATE "C" LIMIT $2 OFFSET $3', [userId, page.limit, page.offset]);
      return rows.map(toTicket);
    },
  };
}
