import type { Database as Db } from 'better-sqlite3';
import type { Ticket } from '../../domain/index.js';
import type {
  CheckInInput, CheckInOutcome, IssueTicketsInput, IssueTicketsOutcome, Page, SeatChange, TicketDraft, TicketStore,
} from '../../ports/engine/index.js';
import type { SeatChooser } from './choose-seats.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import * as records from './records.js';
import type { Shared } from './shared.js';
import type { ShowCache } from './shows.js';

export function sqliteTickets(db: Db, gc: GroupCommit, shows: ShowCache, shared: Shared, choose: SeatChooser): TicketStore {
  const q = {
    ticket: db.prepare('UPDATE orders SET status = \'TICKETED\', updated_at = ? WHERE order_id = ? AND status = \'PAID\' RETURNING *'),
    sellFree: db.prepare(`UPDATE seats SET status = 'SOLD', hold_id = ?, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'AVAILABLE' RETURNING version`),
    insert: db.prepare(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'VALID', ?)`),
    checkIn: db.prepare(`UPDATE tickets SET status = ?, used_at = ?, checkin_nonce = ?, checkin_by = ?, checkin_gate = ?, checkin_device = ?
      WHERE ticket_id = ? AND status = ? RETURNING *`),
    get: db.prepare('SELECT * FROM tickets WHERE ticket_id = ?'),
    byOrder: db.prepare('SELECT * FROM tickets WHERE order_id = ? ORDER BY seat_id IS NULL, seat_id, ticket_id'),
    revoked: db.prepare(`SELECT ticket_id FROM tickets WHERE show_id = ? AND status = 'INVALID' ORDER BY ticket_id LIMIT ?`).pluck(),
    byUser: db.prepare('SELECT * FROM tickets WHERE user_id = ? ORDER BY issued_at DESC, ticket_id LIMIT ? OFFSET ?'),
  };

  /**
   * Seats for the tickets of a section sold by QUANTITY, picked now: the free seats of the section,
   * nearest the point, side by side where a run is left (the domain chooser), each sold to the hold.
   */
  function pickSeats(input: IssueTicketsInput, showId: string, holdId: string, sectionId: string, quantity: number, changes: SeatChange[]): string[] | null {
    const info = shows.get(showId);
    if (info === null) return null;
    const choice = choose(showId, info.show.seatMap, { quantity, section: sectionId, adjacentOnly: false, ...(input.near === undefined ? {} : { near: input.near }) });
    if (choice === null) return null;
    for (const seatId of choice.seatIds) {
      const sold = q.sellFree.get(holdId, showId, seatId) as { version: number } | undefined;
      if (sold === undefined) return null;
      changes.push({ seatId, status: 'SOLD', holdId, version: sold.version });
    }
    return choice.seatIds;
  }

  return {
    issueTickets: (input: IssueTicketsInput) =>
      gc.write('issueTickets', (): IssueTicketsOutcome => {
        const row = q.ticket.get(input.now, input.orderId) as records.OrderRow | undefined;
        if (row === undefined) return { ok: false, stale: 'order' };
        const info = shows.get(row.show_id);
        const changes: SeatChange[] = [];
        // Drafts without a seat in a seated section get theirs now, section by section.
        const picked = new Map<string, string[]>();
        const needing = new Map<string, number>();
        for (const draft of input.tickets) {
          if (draft.seatId === null && info?.sections.get(draft.sectionId)?.kind === 'SEATED') {
            needing.set(draft.sectionId, (needing.get(draft.sectionId) ?? 0) + 1);
          }
        }
        for (const [sectionId, quantity] of needing) {
          const seats = pickSeats(input, row.show_id, row.hold_id, sectionId, quantity, changes);
          if (seats === null) throw new Rollback<IssueTicketsOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS', sectionId });
          picked.set(sectionId, seats);
        }
        const tickets: Ticket[] = input.tickets.map((draft: TicketDraft, i) => {
          const seatId = draft.seatId ?? (needing.has(draft.sectionId) ? ((picked.get(draft.sectionId) ?? []).shift() ?? null) : null);
          q.insert.run(draft.ticketId, row.order_id, row.user_id, row.show_id, draft.sectionId, seatId, i + 1, draft.code, input.now);
          return {
            ticketId: draft.ticketId, orderId: row.order_id, userId: row.user_id, showId: row.show_id, sectionId: draft.sectionId, seatId,
            code: draft.code, status: 'VALID', issuedAt: input.now, usedAt: null, checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
          };
        });
        return { ok: true, order: shared.order(row), tickets, changes: { showId: row.show_id, seats: changes, stock: [] } };
      }),
    checkIn: ({ ticket, expectedStatus }: CheckInInput) =>
      gc.write('checkIn', (): CheckInOutcome => {
        const row = q.checkIn.get(
          ticket.status, ticket.usedAt, ticket.checkInNonce, ticket.checkedInBy, ticket.checkInGate, ticket.checkInDevice, ticket.ticketId, expectedStatus,
        ) as records.TicketRow | undefined;
        return row === undefined ? { ok: false, stale: 'ticket' } : { ok: true, ticket: records.toTicket(row) };
      }),
    getTicket: async (ticketId) => {
      const row = q.get.get(ticketId) as records.TicketRow | undefined;
      return row === undefined ? null : records.toTicket(row);
    },
    ticketsByOrder: async (orderId) => (q.byOrder.all(orderId) as records.TicketRow[]).map(records.toTicket),
    revokedTicketIds: async (showId, limit) => q.revoked.all(showId, limit) as string[],
    ticketsByUser: async (userId, page: Page) => (q.byUser.all(userId, page.limit, page.offset) as records.TicketRow[]).map(records.toTicket),
  };
}
