import type { Database } from 'better-sqlite3';

/**
 * Versioned schema. Each entry runs once, in order, inside a transaction; PRAGMA user_version
 * records how far a database has come. Never edit a released entry: append a new one.
 * The invariants that must hold even if code is wrong live here as constraints.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('BUYER','STAFF','ADMIN')),
    created_at INTEGER NOT NULL
  );

  CREATE TABLE shows (
    show_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    venue TEXT NOT NULL,
    city TEXT NOT NULL,
    starts_at INTEGER NOT NULL,
    sale_starts_at INTEGER NOT NULL,
    sale_ends_at INTEGER NOT NULL,
    seat_map TEXT NOT NULL,
    capacity INTEGER NOT NULL CHECK (capacity > 0),
    created_at INTEGER NOT NULL,
    CHECK (sale_starts_at < sale_ends_at)
  );

  -- A seat is AVAILABLE exactly when no hold owns it.
  CREATE TABLE seats (
    show_id TEXT NOT NULL REFERENCES shows(show_id),
    seat_id TEXT NOT NULL,
    section TEXT NOT NULL,
    row_no INTEGER NOT NULL,
    seat_no INTEGER NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    status TEXT NOT NULL CHECK (status IN ('AVAILABLE','HELD','SOLD','REFUND_PENDING')),
    hold_id TEXT,
    version INTEGER NOT NULL,
    PRIMARY KEY (show_id, seat_id),
    CHECK ((status = 'AVAILABLE') = (hold_id IS NULL))
  ) WITHOUT ROWID;

  CREATE TABLE holds (
    hold_id TEXT PRIMARY KEY,
    show_id TEXT NOT NULL REFERENCES shows(show_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    seat_ids TEXT NOT NULL,
    total_price_cents INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ACTIVE','EXPIRED','CONFIRMED','RELEASED')),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  -- The sweep's access path: only live holds, by expiry time.
  CREATE INDEX holds_active_by_expiry ON holds (expires_at) WHERE status = 'ACTIVE';

  -- claim = 1 while the hold is ACTIVE or CONFIRMED, NULL after. The partial unique index is the
  -- schema's guarantee that a seat belongs to at most one live hold, whatever the code does.
  CREATE TABLE hold_seats (
    hold_id TEXT NOT NULL REFERENCES holds(hold_id),
    show_id TEXT NOT NULL,
    seat_id TEXT NOT NULL,
    claim INTEGER CHECK (claim = 1),
    PRIMARY KEY (hold_id, seat_id)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX hold_seats_one_live_claim ON hold_seats (show_id, seat_id) WHERE claim = 1;

  CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    show_id TEXT NOT NULL REFERENCES shows(show_id),
    hold_id TEXT NOT NULL REFERENCES holds(hold_id),
    idempotency_key TEXT NOT NULL,
    seat_ids TEXT NOT NULL,
    amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
    status TEXT NOT NULL CHECK (status IN ('INIT','PENDING_PAY','PAID','TICKETED','CANCELLED','REFUNDED')),
    payment_id TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (user_id, idempotency_key)
  );
  CREATE UNIQUE INDEX orders_one_live_per_hold ON orders (hold_id) WHERE status NOT IN ('CANCELLED','REFUNDED');
  CREATE INDEX orders_by_user ON orders (user_id, created_at);
  CREATE INDEX orders_by_status ON orders (status, updated_at);

  CREATE TABLE payments (
    payment_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    amount_cents INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED','REFUND_PENDING','REFUNDED')),
    updated_at INTEGER NOT NULL,
    UNIQUE (payment_id, order_id)
  );
  CREATE INDEX payments_by_status ON payments (status, updated_at);

  CREATE TABLE tickets (
    ticket_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    show_id TEXT NOT NULL,
    seat_id TEXT NOT NULL,
    code TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL CHECK (status IN ('VALID','USED','INVALID')),
    issued_at INTEGER NOT NULL,
    used_at INTEGER,
    checkin_nonce TEXT,
    UNIQUE (order_id, seat_id)
  );
  -- One admitting ticket per seat, ever.
  CREATE UNIQUE INDEX tickets_one_per_seat ON tickets (show_id, seat_id) WHERE status <> 'INVALID';
  CREATE INDEX tickets_by_user ON tickets (user_id, issued_at);

  CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('IN_FLIGHT','DONE')),
    outcome TEXT CHECK (outcome IN ('SUCCEEDED','FAILED')),
    response_body TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
  ) WITHOUT ROWID;
  `,
  // v2: holds can be extended a bounded number of times.
  `
  ALTER TABLE holds ADD COLUMN extensions INTEGER NOT NULL DEFAULT 0 CHECK (extensions >= 0);
  `,
];

export function migrate(db: Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    const sql = migrations[version] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return migrations.length;
}
