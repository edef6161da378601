import type { Database as Db } from 'better-sqlite3';
import type { Ticket } from '../../domain/index.js';
import type {
  Attendee, AttendeesByNameInput, CheckInInput, CheckInOutcome, DoorCounts, IssueTicketsInput, IssueTicketsOutcome, Page, SeatChange, TicketDraft, TicketStore,
} from '../../ports/engine/index.js';
import { doorCountDelta, keyRangeEnd } from '../shared/door-counts.js';
import { ticketCheckedIn, ticketsIssued } from '../shared/outbox-drafts.js';
import type { SeatChooser } from './choose-seats.js';
import type { OutboxWriter } from './outbox.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import * as records from './records.js';
import type { Shared } from './shared.js';
import type { ShowCache } from './shows.js';

export function sqliteTickets(db: Db, gc: GroupCommit, shows: ShowCache, shared: Shared, choose: SeatChooser, ob: OutboxWriter): TicketStore {
  const q = {
    ticket: db.prepare('UPDATE orders SET status = \'TICKETED\', updated_at = ? WHERE order_id = ? AND status = \'PAID\' RETURNING *'),
    sellFree: db.prepare(`UPDATE seats SET status = 'SOLD', hold_id = ?, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'AVAILABLE' RETURNING version`),
    insert: db.prepare(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at, buyer_key, paid_cents)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'VALID', ?, (SELECT username_key FROM users WHERE user_id = ?), ?)`),
    // The counters move by the change; their CHECKs refuse a count below 0 or more used than admitting.
    // Issue creates the show's row; a check-in moves the row its tickets' issue made.
    countIssued: db.prepare(`INSERT INTO show_door_counts (show_id, admitting, checked_in) VALUES (?, ?, 0)
      ON CONFLICT (show_id) DO UPDATE SET admitting = admitting + excluded.admitting`),
    countChange: db.prepare('UPDATE show_door_counts SET admitting = admitting + ?, checked_in = checked_in + ? WHERE show_id = ?'),
    counts: db.prepare('SELECT admitting, checked_in FROM show_door_counts WHERE show_id = ?'),
    byCode: db.prepare('SELECT * FROM tickets WHERE show_id = ? AND code = ?'),
    // Both walk tickets_attendees in its order, at most offset + limit entries.
    attendeesAll: db.prepare(`SELECT t.*, u.username FROM tickets t JOIN users u ON u.user_id = t.user_id
      WHERE t.show_id = ? AND t.ticket_id IS NOT ? ORDER BY t.buyer_key, t.order_id, t.seq LIMIT ? OFFSET ?`),
    attendeesRange: db.prepare(`SELECT t.*, u.username FROM tickets t JOIN users u ON u.user_id = t.user_id
      WHERE t.show_id = ? AND t.buyer_key >= ? AND t.buyer_key < ? AND t.ticket_id IS NOT ?
      ORDER BY t.buyer_key, t.order_id, t.seq LIMIT ? OFFSET ?`),
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
          q.insert.run(draft.ticketId, row.order_id, row.user_id, row.show_id, draft.sectionId, seatId, i + 1, draft.code, input.now, row.user_id, draft.paidCents);
          return {
            ticketId: draft.ticketId, orderId: row.order_id, userId: row.user_id, showId: row.show_id, sectionId: draft.sectionId, seatId,
            code: draft.code, status: 'VALID', issuedAt: input.now, usedAt: null, checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
            paidCents: draft.paidCents,
          };
        });
        q.countIssued.run(row.show_id, tickets.length);
        const order = shared.order(row);
        const inventory = { showId: row.show_id, seats: changes, stock: [] };
        ob.append(input.now, [ticketsIssued(order, tickets, inventory)]);
        return { ok: true, order, tickets, changes: inventory };
      }),
    checkIn: ({ ticket, expectedStatus }: CheckInInput) =>
      gc.write('checkIn', (): CheckInOutcome => {
        const row = q.checkIn.get(
          ticket.status, ticket.usedAt, ticket.checkInNonce, ticket.checkedInBy, ticket.checkInGate, ticket.checkInDevice, ticket.ticketId, expectedStatus,
        ) as records.TicketRow | undefined;
        if (row === undefined) return { ok: false, stale: 'ticket' };
        const delta = doorCountDelta(expectedStatus, ticket.status);
        if (delta.admitting !== 0 || delta.checkedIn !== 0) q.countChange.run(delta.admitting, delta.checkedIn, row.show_id);
        const stored = records.toTicket(row);
        ob.append(ticket.usedAt ?? Date.now(), [ticketCheckedIn(stored)]);
        return { ok: true, ticket: stored };
      }),
    getTicket: async (ticketId) => {
      const row = q.get.get(ticketId) as records.TicketRow | undefined;
      return row === undefined ? null : records.toTicket(row);
    },
    ticketsByOrder: async (orderId) => (q.byOrder.all(orderId) as records.TicketRow[]).map(records.toTicket),
    revokedTicketIds: async (showId, limit) => q.revoked.all(showId, limit) as string[],
    ticketsByUser: async (userId, page: Page) => (q.byUser.all(userId, page.limit, page.offset) as records.TicketRow[]).map(records.toTicket),
    ticketByCode: async (showId, code) => {
      const row = q.byCode.get(showId, code) as records.TicketRow | undefined;
      return row === undefined ? null : records.toTicket(row);
    },
    doorCounts: async (showId): Promise<DoorCounts> => {
      const row = q.counts.get(showId) as { admitting: number; checked_in: number } | undefined;
      return { admitting: row?.admitting ?? 0, checkedIn: row?.checked_in ?? 0 };
    },
    attendeesByName: async (input: AttendeesByNameInput): Promise<Attendee[]> => {
      const end = keyRangeEnd(input.keyPrefix);
      const rows = (end === null
        ? q.attendeesAll.all(input.showId, input.excludeTicketId, input.limit, input.offset)
        : q.attendeesRange.all(input.showId, input.keyPrefix, end, input.excludeTicketId, input.limit, input.offset)) as (records.TicketRow & { username: string })[];
      return rows.map((row) => ({ ticket: records.toTicket(row), username: row.username }));
    },
  };
}
