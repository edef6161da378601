import type { Hold, Order, OrderStatus, Payment, PaymentStatus, Role, Seat, Show, Ticket, User } from '../domain/index.js';

/**
 * The storage port. It exposes no connection or transaction type: a unit of work receives
 * repositories and commits as a whole or not at all. Every `save` is conditional on the state the
 * caller read (seat version, previous status) and throws StoreConflictError if someone else moved
 * first, so an adapter without in-process serialisation (PostgreSQL) stays correct.
 */
export interface BookingStore {
  /** Atomic unit of work. `work` must not wait on anything outside the store (no network calls). */
  transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** Consistent reads; no writes. */
  read<T>(work: (tx: StoreReader) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreReader {
  readonly users: UserReads;
  readonly shows: ShowReads;
  readonly seats: SeatReads;
  readonly holds: HoldReads;
  readonly orders: OrderReads;
  readonly payments: PaymentReads;
  readonly tickets: TicketReads;
}

export interface StoreTx {
  readonly users: UserRepository;
  readonly shows: ShowRepository;
  readonly seats: SeatRepository;
  readonly holds: HoldRepository;
  readonly orders: OrderRepository;
  readonly payments: PaymentRepository;
  readonly tickets: TicketRepository;
  readonly idempotency: IdempotencyRepository;
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export interface UserReads {
  get(userId: string): Promise<User | null>;
  findByUsername(username: string): Promise<User | null>;
}
export interface UserRepository extends UserReads {
  /** false when the username is taken. */
  insert(user: User): Promise<boolean>;
  setRole(userId: string, role: Role): Promise<void>;
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
}

export interface ShowReads {
  get(showId: string): Promise<Show | null>;
  list(page: Page): Promise<Show[]>;
}
export interface ShowRepository extends ShowReads {
  insert(show: Show, seats: readonly Seat[]): Promise<void>;
}

export interface SeatReads {
  /** The seats of `seatIds` that exist, in no particular order. */
  getMany(showId: string, seatIds: readonly string[]): Promise<Seat[]>;
  listByShow(showId: string): Promise<Seat[]>;
}
export interface SeatRepository extends SeatReads {
  /** Each seat's `version` must be exactly one more than the stored one. */
  save(seats: readonly Seat[]): Promise<void>;
}

export interface HoldReads {
  get(holdId: string): Promise<Hold | null>;
}
export interface HoldRepository extends HoldReads {
  insert(hold: Hold): Promise<void>;
  /** Optimistic: fails with StoreConflictError unless the stored hold still matches `previous`. */
  save(hold: Hold, previous: Pick<Hold, 'status' | 'extensions'>): Promise<void>;
  /** ACTIVE holds with expiresAt <= now, oldest first. */
  findOverdue(now: number, limit: number): Promise<Hold[]>;
}

export interface OrderReads {
  get(orderId: string): Promise<Order | null>;
  listByUser(userId: string, page: Page): Promise<Order[]>;
  /** The order a user's idempotency key opened, whatever became of it. */
  findByIdempotencyKey(userId: string, key: string): Promise<Order | null>;
  /** Orders in `status` last changed at or before `updatedBefore`, oldest first. */
  findByStatus(status: OrderStatus, updatedBefore: number, limit: number): Promise<Order[]>;
}
export interface OrderRepository extends OrderReads {
  insert(order: Order): Promise<void>;
  save(order: Order, previous: OrderStatus): Promise<void>;
  /** The hold's order that is not CANCELLED or REFUNDED, if any. */
  findLiveByHold(holdId: string): Promise<Order | null>;
}

export interface PaymentReads {
  get(paymentId: string): Promise<Payment | null>;
  findByStatus(status: PaymentStatus, updatedBefore: number, limit: number): Promise<Payment[]>;
}
export interface PaymentRepository extends PaymentReads {
  insert(payment: Payment): Promise<void>;
  save(payment: Payment, previous: PaymentStatus): Promise<void>;
}

export interface TicketReads {
  get(ticketId: string): Promise<Ticket | null>;
  listByOrder(orderId: string): Promise<Ticket[]>;
  listByUser(userId: string, page: Page): Promise<Ticket[]>;
}
export interface TicketRepository extends TicketReads {
  insertMany(tickets: readonly Ticket[]): Promise<void>;
  save(ticket: Ticket, previous: Ticket['status']): Promise<void>;
}

/** A stored first answer to an idempotency key (the way payment APIs do it). */
export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly state: 'IN_FLIGHT' | 'DONE';
  /** Set once DONE: whether the first request succeeded, and its answer (JSON) to replay. */
  readonly outcome: 'SUCCEEDED' | 'FAILED' | null;
  readonly responseBody: string | null;
  readonly createdAt: number;
}
export interface IdempotencyRepository {
  get(scope: string, key: string): Promise<IdempotencyRecord | null>;
  /** false when the key exists already. */
  begin(record: IdempotencyRecord): Promise<boolean>;
  /**
   * Both act only on the record that `begin` wrote at `createdAt`: a request whose key a retry
   * has taken over (see limits.idempotencyInFlightMsMax) can no longer answer for it.
   */
  complete(scope: string, key: string, createdAt: number, outcome: 'SUCCEEDED' | 'FAILED', responseBody: string): Promise<void>;
  remove(scope: string, key: string, createdAt: number): Promise<void>;
}

/** Someone else changed the row between our read and our write, or a uniqueness rule refused it. */
export class StoreConflictError extends Error {
  constructor(readonly entity: string, readonly id: string, message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
