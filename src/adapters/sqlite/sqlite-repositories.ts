import type { Database, Statement } from 'better-sqlite3';
import type { Hold, Order, OrderStatus, Payment, PaymentStatus, Role, Seat, Show, Ticket, User } from '../../domain/index.js';
import {
  StoreConflictError,
  type HoldRepository,
  type IdempotencyRecord,
  type IdempotencyRepository,
  type OrderRepository,
  type Page,
  type PaymentRepository,
  type SeatRepository,
  type ShowRepository,
  type StoreTx,
  type TicketRepository,
  type UserRepository,
} from '../../ports/store.js';
import * as rows from './rows.js';

/**
 * Repositories over one better-sqlite3 connection. Statements are prepared once. Calls are
 * synchronous underneath; they return promises only to honour the port.
 */
export function createSqliteRepositories(db: Database): StoreTx {
  const q = prepareAll(db);
  return {
    users: userRepository(q),
    shows: showRepository(q),
    seats: seatRepository(q),
    holds: holdRepository(q),
    orders: orderRepository(q),
    payments: paymentRepository(q),
    tickets: ticketRepository(q),
    idempotency: idempotencyRepository(q),
  };
}

type Statements = ReturnType<typeof prepareAll>;

function prepareAll(db: Database) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    userById: p('SELECT * FROM users WHERE user_id = ?'),
    userByName: p('SELECT * FROM users WHERE username = ?'),
    userInsert: p(`INSERT INTO users (user_id, username, password_hash, role, created_at)
      VALUES (@userId, @username, @passwordHash, @role, @createdAt) ON CONFLICT (username) DO NOTHING`),
    userSetRole: p('UPDATE users SET role = ? WHERE user_id = ?'),
    userSetPasswordHash: p('UPDATE users SET password_hash = ? WHERE user_id = ?'),
    showById: p('SELECT * FROM shows WHERE show_id = ?'),
    showList: p('SELECT * FROM shows ORDER BY sale_starts_at, show_id LIMIT ? OFFSET ?'),
    showInsert: p(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, created_at)
      VALUES (@showId, @title, @venue, @city, @startsAt, @saleStartsAt, @saleEndsAt, @seatMap, @capacity, @createdAt)`),
    seatInsert: p(`INSERT INTO seats (show_id, seat_id, section, row_no, seat_no, price_cents, status, hold_id, version)
      VALUES (@showId, @seatId, @section, @row, @number, @priceCents, @status, @holdId, @version)`),
    seatGet: p('SELECT * FROM seats WHERE show_id = ? AND seat_id = ?'),
    seatsByShow: p('SELECT * FROM seats WHERE show_id = ? ORDER BY section, row_no, seat_no'),
    // Optimistic: the write only lands on the version the caller read.
    // Positional parameters on the hot path: binding by name costs a property lookup per parameter.
    seatSave: p(`UPDATE seats SET status = ?, hold_id = ?, version = ?
      WHERE show_id = ? AND seat_id = ? AND version = ?`),
    holdGet: p('SELECT * FROM holds WHERE hold_id = ?'),
    holdInsert: p(`INSERT INTO holds (hold_id, show_id, user_id, seat_ids, total_price_cents, status, created_at, expires_at, extensions)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    holdSeatInsert: p('INSERT INTO hold_seats (hold_id, show_id, seat_id, claim) VALUES (?, ?, ?, 1)'),
    holdSave: p(`UPDATE holds SET status = @status, expires_at = @expiresAt, extensions = @extensions
      WHERE hold_id = @holdId AND status = @previousStatus AND extensions = @previousExtensions`),
    holdClaim: p('UPDATE hold_seats SET claim = ? WHERE hold_id = ?'),
    holdOverdue: p(`SELECT * FROM holds WHERE status = 'ACTIVE' AND expires_at <= ? ORDER BY expires_at LIMIT ?`),
    orderGet: p('SELECT * FROM orders WHERE order_id = ?'),
    orderByUser: p('SELECT * FROM orders WHERE user_id = ? ORDER BY created_at DESC, order_id LIMIT ? OFFSET ?'),
    orderInsert: p(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, seat_ids, amount_cents, status, payment_id, created_at, updated_at)
      VALUES (@orderId, @userId, @showId, @holdId, @idempotencyKey, @seatIds, @amountCents, @status, @paymentId, @createdAt, @updatedAt)`),
    orderSave: p('UPDATE orders SET status = ?, payment_id = ?, updated_at = ? WHERE order_id = ? AND status = ?'),
    orderByKey: p('SELECT * FROM orders WHERE user_id = ? AND idempotency_key = ?'),
    orderLiveByHold: p(`SELECT * FROM orders WHERE hold_id = ? AND status NOT IN ('CANCELLED','REFUNDED')`),
    orderByStatus: p('SELECT * FROM orders WHERE status = ? AND updated_at <= ? ORDER BY updated_at LIMIT ?'),
    paymentGet: p('SELECT * FROM payments WHERE payment_id = ?'),
    paymentInsert: p(`INSERT INTO payments (payment_id, order_id, amount_cents, status, updated_at)
      VALUES (@paymentId, @orderId, @amountCents, @status, @updatedAt)`),
    paymentSave: p('UPDATE payments SET status = ?, updated_at = ? WHERE payment_id = ? AND status = ?'),
    paymentByStatus: p('SELECT * FROM payments WHERE status = ? AND updated_at <= ? ORDER BY updated_at LIMIT ?'),
    ticketGet: p('SELECT * FROM tickets WHERE ticket_id = ?'),
    ticketByOrder: p('SELECT * FROM tickets WHERE order_id = ? ORDER BY seat_id'),
    ticketByUser: p('SELECT * FROM tickets WHERE user_id = ? ORDER BY issued_at DESC, ticket_id LIMIT ? OFFSET ?'),
    ticketInsert: p(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, seat_id, code, status, issued_at, used_at, checkin_nonce)
      VALUES (@ticketId, @orderId, @userId, @showId, @seatId, @code, @status, @issuedAt, @usedAt, @checkInNonce)`),
    ticketSave: p('UPDATE tickets SET status = ?, used_at = ?, checkin_nonce = ? WHERE ticket_id = ? AND status = ?'),
    idemGet: p('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?'),
    idemBegin: p(`INSERT INTO idempotency_keys (scope, key, request_hash, state, outcome, response_body, created_at)
      VALUES (@scope, @key, @requestHash, @state, @outcome, @responseBody, @createdAt) ON CONFLICT DO NOTHING`),
    idemComplete: p(`UPDATE idempotency_keys SET state = 'DONE', outcome = ?, response_body = ? WHERE scope = ? AND key = ? AND created_at = ?`),
    idemRemove: p('DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at = ?'),
  };
}

function one<R, T>(statement: Statement, map: (row: R) => T, ...params: unknown[]): T | null {
  const row = statement.get(...params) as R | undefined;
  return row === undefined ? null : map(row);
}

function many<R, T>(statement: Statement, map: (row: R) => T, ...params: unknown[]): T[] {
  return (statement.all(...params) as R[]).map(map);
}

function expectOneChange(changes: number, entity: string, id: string): void {
  if (changes !== 1) throw new StoreConflictError(entity, id, `${entity} ${id} was changed concurrently`);
}

function userRepository(q: Statements): UserRepository {
  return {
    get: async (id) => one(q.userById, rows.toUser, id),
    findByUsername: async (name) => one(q.userByName, rows.toUser, name),
    insert: async (user: User) => q.userInsert.run(user).changes === 1,
    setRole: async (userId: string, role: Role) => expectOneChange(q.userSetRole.run(role, userId).changes, 'user', userId),
    setPasswordHash: async (userId: string, hash: string) => expectOneChange(q.userSetPasswordHash.run(hash, userId).changes, 'user', userId),
  };
}

function showRepository(q: Statements): ShowRepository {
  return {
    get: async (id) => one(q.showById, rows.toShow, id),
    list: async (page: Page) => many(q.showList, rows.toShow, page.limit, page.offset),
    async insert(show: Show, seats: readonly Seat[]) {
      q.showInsert.run({ ...show, seatMap: JSON.stringify(show.seatMap) });
      for (const seat of seats) q.seatInsert.run(seat);
    },
  };
}

function seatRepository(q: Statements): SeatRepository {
  return {
    async getMany(showId, seatIds) {
      const found: Seat[] = [];
      for (const id of seatIds) {
        const seat = one(q.seatGet, rows.toSeat, showId, id);
        if (seat !== null) found.push(seat);
      }
      return found;
    },
    listByShow: async (showId) => many(q.seatsByShow, rows.toSeat, showId),
    async save(seats) {
      for (const seat of seats) {
        expectOneChange(q.seatSave.run(seat.status, seat.holdId, seat.version, seat.showId, seat.seatId, seat.version - 1).changes, 'seat', seat.seatId);
      }
    },
  };
}

function holdRepository(q: Statements): HoldRepository {
  return {
    get: async (id) => one(q.holdGet, rows.toHold, id),
    async insert(hold: Hold) {
      q.holdInsert.run(hold.holdId, hold.showId, hold.userId, JSON.stringify(hold.seatIds), hold.totalPriceCents, hold.status, hold.createdAt, hold.expiresAt, hold.extensions);
      for (const seatId of hold.seatIds) q.holdSeatInsert.run(hold.holdId, hold.showId, seatId);
    },
    async save(hold, previous) {
      const { status, expiresAt, extensions, holdId } = hold;
      const changes = q.holdSave.run({ status, expiresAt, extensions, holdId, previousStatus: previous.status, previousExtensions: previous.extensions }).changes;
      expectOneChange(changes, 'hold', holdId);
      const claims = status === 'ACTIVE' || status === 'CONFIRMED';
      const wasClaiming = previous.status === 'ACTIVE' || previous.status === 'CONFIRMED';
      if (claims !== wasClaiming) q.holdClaim.run(claims ? 1 : null, hold.holdId);
    },
    findOverdue: async (now, limit) => many(q.holdOverdue, rows.toHold, now, limit),
  };
}

function orderRepository(q: Statements): OrderRepository {
  return {
    get: async (id) => one(q.orderGet, rows.toOrder, id),
    listByUser: async (userId, page) => many(q.orderByUser, rows.toOrder, userId, page.limit, page.offset),
    insert: async (order: Order) => void q.orderInsert.run({ ...order, seatIds: JSON.stringify(order.seatIds) }),
    async save(order: Order, previous: OrderStatus) {
      const { changes } = q.orderSave.run(order.status, order.paymentId, order.updatedAt, order.orderId, previous);
      expectOneChange(changes, 'order', order.orderId);
    },
    findLiveByHold: async (holdId) => one(q.orderLiveByHold, rows.toOrder, holdId),
    findByIdempotencyKey: async (userId, key) => one(q.orderByKey, rows.toOrder, userId, key),
    findByStatus: async (status, before, limit) => many(q.orderByStatus, rows.toOrder, status, before, limit),
  };
}

function paymentRepository(q: Statements): PaymentRepository {
  return {
    get: async (id) => one(q.paymentGet, rows.toPayment, id),
    insert: async (payment: Payment) => void q.paymentInsert.run(payment),
    async save(payment: Payment, previous: PaymentStatus) {
      const { changes } = q.paymentSave.run(payment.status, payment.updatedAt, payment.paymentId, previous);
      expectOneChange(changes, 'payment', payment.paymentId);
    },
    findByStatus: async (status, before, limit) => many(q.paymentByStatus, rows.toPayment, status, before, limit),
  };
}

function ticketRepository(q: Statements): TicketRepository {
  return {
    get: async (id) => one(q.ticketGet, rows.toTicket, id),
    listByOrder: async (orderId) => many(q.ticketByOrder, rows.toTicket, orderId),
    listByUser: async (userId, page) => many(q.ticketByUser, rows.toTicket, userId, page.limit, page.offset),
    async insertMany(tickets: readonly Ticket[]) {
      for (const ticket of tickets) q.ticketInsert.run(ticket);
    },
    async save(ticket, previous) {
      const { changes } = q.ticketSave.run(ticket.status, ticket.usedAt, ticket.checkInNonce, ticket.ticketId, previous);
      expectOneChange(changes, 'ticket', ticket.ticketId);
    },
  };
}

function idempotencyRepository(q: Statements): IdempotencyRepository {
  return {
    get: async (scope, key) => one(q.idemGet, rows.toIdempotency, scope, key),
    begin: async (record: IdempotencyRecord) => q.idemBegin.run(record).changes === 1,
    async complete(scope, key, createdAt, outcome, body) {
      expectOneChange(q.idemComplete.run(outcome, body, scope, key, createdAt).changes, 'idempotency key', key);
    },
    remove: async (scope, key, createdAt) => void q.idemRemove.run(scope, key, createdAt),
  };
}
