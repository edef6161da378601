import { chooseBestAvailable, type BestAvailableChoice, type SeatMapSpec, type SeatPosition, type Ticket } from '../../domain/index.js';
import { StoreBusyError, type IssueTicketsOutcome, type SeatChange, type TicketStore } from '../../ports/engine/index.js';

/** Chosen seats lost to parallel issuers before issuing gives up with BUSY. */
const ticketSeatCollisionsMax = 64;
import { unexpected, type PgDb } from './db.js';
import { toOrder, toTicket, type OrderRow, type TicketRow } from './rows.js';
import { refuse, takeChosenSeats } from './stock.js';

export function pgTickets(db: PgDb): TicketStore {
  return {
    // READ COMMITTED. The conditional UPDATE PAID -> TICKETED locks the order row: of two
    // issuers one wins, the other re-checks the committed status and answers stale. Seats of a
    // section sold by QUANTITY are picked now from its free seats, read FOR UPDATE SKIP LOCKED so
    // two orders being ticketed at once never pick the same seat (nor wait on each other), and
    // taken with the conditional update of claims. The partial unique index "one admitting
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
            // Free seats read without locks; only the chosen ones are locked (SKIP LOCKED), so
            // parallel issuers of one section each get their own seats instead of one of them
            // locking the whole section.
            const { rows: free } = await c.query<{ seat_id: string; section_id: string; row_no: number; seat_no: number; accessible: boolean }>(
              `SELECT seat_id, section_id, row_no, seat_no, accessible FROM seats
               WHERE show_id = $1 AND section_id = $2 AND status = 'AVAILABLE'`, [order.show_id, sectionId]);
            const seats: SeatPosition[] = free.map((r) => ({ seatId: r.seat_id, section: r.section_id, row: r.row_no, number: r.seat_no, available: true, accessible: r.accessible }));
            await c.query('SAVEPOINT pick');
            let taken: SeatChange[] | null = null;
            let choice: BestAvailableChoice | null = null;
            for (let attempt = 0; taken === null; attempt++) {
              choice = chooseBestAvailable(seatMap, seats, {
                quantity: drafts.length, section: sectionId, adjacentOnly: false,
                ...(input.near !== undefined && input.near.section === sectionId ? { near: input.near } : {}),
              });
              if (choice === null) refuse<IssueTicketsOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS', sectionId });
              const take = await takeChosenSeats(c, order.show_id, order.hold_id, choice.seatIds, 'SOLD');
              if (take.ok) taken = take.seats;
              else {
                const lost = new Set(take.lost);
                seats.forEach((seat, k) => { if (lost.has(seat.seatId)) seats[k] = { ...seat, available: false }; });
                if (attempt >= ticketSeatCollisionsMax) throw new StoreBusyError('issueTickets', 'seats picked for the tickets kept being taken');
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
          checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
        }));
        await c.query(
          `INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at)
           SELECT id, $1, $2, $3, section_id, seat_id, n, code, 'VALID', $4
           FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS t(id, section_id, seat_id, code, n)`,
          [order.order_id, order.user_id, order.show_id, input.now, tickets.map((t) => t.ticketId), tickets.map((t) => t.sectionId), tickets.map((t) => t.seatId), tickets.map((t) => t.code)]);
        return { ok: true, order: toOrder(order), tickets, changes: { showId: order.show_id, seats: changes, stock: [] } } as const;
      });
      if (result.ok) return result.value;
      // A seat that already has an admitting ticket: nothing was written.
      if (result.kind === 'unique' && result.constraint === 'tickets_one_per_seat') return { ok: false, stale: 'order' };
      return unexpected('issueTickets', result);
    },

    // One compare-and-set UPDATE on the expected status: of two scans one admits.
    async checkIn({ ticket, expectedStatus }) {
      const result = await db.tx('checkIn', (c) => c.query<TicketRow>(
        `UPDATE tickets SET status = $3, used_at = $4, checkin_nonce = $5, checkin_by = $6, checkin_gate = $7, checkin_device = $8
         WHERE ticket_id = $1 AND status = $2 RETURNING *`,
        [ticket.ticketId, expectedStatus, ticket.status, ticket.usedAt, ticket.checkInNonce, ticket.checkedInBy, ticket.checkInGate, ticket.checkInDevice]));
      if (!result.ok) return unexpected('checkIn', result);
      const row = result.value.rows[0];
      return row === undefined ? { ok: false, stale: 'ticket' } : { ok: true, ticket: toTicket(row) };
    },

    async getTicket(ticketId) {
      const { rows } = await db.pool.query<TicketRow>('SELECT * FROM tickets WHERE ticket_id = $1', [ticketId]);
      return rows[0] === undefined ? null : toTicket(rows[0]);
    },
    async ticketsByOrder(orderId) {
      const { rows } = await db.pool.query<TicketRow>('SELECT * FROM tickets WHERE order_id = $1 ORDER BY seat_id COLLATE "C" NULLS LAST, ticket_id COLLATE "C"', [orderId]);
      return rows.map(toTicket);
    },
    async revokedTicketIds(showId, limit) {
      const { rows } = await db.pool.query<{ ticket_id: string }>(
        `SELECT ticket_id FROM tickets WHERE show_id = $1 AND status = 'INVALID' ORDER BY ticket_id COLLATE "C" LIMIT $2`, [showId, limit]);
      return rows.map((r) => r.ticket_id);
    },
    async ticketsByUser(userId, page) {
      const { rows } = await db.pool.query<TicketRow>('SELECT * FROM tickets WHERE user_id = $1 ORDER BY issued_at DESC, ticket_id COLLATE "C" LIMIT $2 OFFSET $3', [userId, page.limit, page.offset]);
      return rows.map(toTicket);
    },
  };
}
