import type { Database } from 'better-sqlite3';
import { usernameKey } from '../../domain/username.js';

/**
 * A step is SQL, or a function for what SQL cannot compute (it runs in the same transaction), or a
 * table rebuild that must run with foreign keys off (SQLite's documented 12-step procedure: a
 * parent table such as orders cannot be dropped and renamed back with them on). Its foreign keys
 * are checked before its transaction commits.
 */
export type Migration = string | ((db: Database) => void) | { readonly foreignKeysOff: true; readonly run: (db: Database) => void };

/**
 * Versioned schema. Each entry runs once, in order, inside a transaction; PRAGMA user_version
 * records how far a database has come. Never edit a released entry: append a new one.
 * The invariants that must hold even if code is wrong live here as constraints.
 */
export const migrations: readonly Migration[] = [
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
  // v3: usernames unique without regard to case after Unicode NFKC normalisation.
  addUsernameKeys,
  // v4: the background passes page through their backlogs by (time, id) keysets; these indexes
  // serve each page straight from the index, however large the backlog. A payment remembers the
  // amount the provider reported when it differed from the charge, so its refund returns that.
  `
  ALTER TABLE payments ADD COLUMN received_cents INTEGER CHECK (received_cents >= 0);
  DROP INDEX payments_by_status;
  CREATE INDEX payments_by_status ON payments (status, updated_at, payment_id);
  DROP INDEX orders_by_status;
  CREATE INDEX orders_by_status ON orders (status, updated_at, order_id);
  DROP INDEX holds_active_by_expiry;
  CREATE INDEX holds_active_by_expiry ON holds (expires_at, hold_id) WHERE status = 'ACTIVE';
  `,
  // v5: a check-in nonce is the same scan only from the same steward, gate and device; a per-buyer
  // seat limit per show (NULL: the configured default, as for every show from before v5), and the
  // access path that counts one buyer's seats of a show while placing a hold.
  `
  ALTER TABLE tickets ADD COLUMN checkin_by TEXT;
  ALTER TABLE tickets ADD COLUMN checkin_gate TEXT;
  ALTER TABLE tickets ADD COLUMN checkin_device TEXT;
  ALTER TABLE shows ADD COLUMN max_seats_per_user INTEGER CHECK (max_seats_per_user IS NULL OR max_seats_per_user >= 1);
  CREATE INDEX holds_claiming_by_user ON holds (user_id, show_id) WHERE status IN ('ACTIVE','CONFIRMED');
  `,
  // v6: one inventory engine for seats and counted stock (issue 13); see addInventory.
  addInventory,
  // v7: a show is written in chunks (a 100,000-seat show must not stall the process) and published
  // by its last one: ready = 0 until then, invisible to every read, list and claim; a start
  // removes a show whose creation a crash cut short. Shows from before v7 are complete (ready = 1).
  `
  ALTER TABLE shows ADD COLUMN ready INTEGER NOT NULL DEFAULT 1 CHECK (ready IN (0, 1));
  `,
  // v8: a buyer's live holds, so every page can resume a hold after a reload (GET /me/holds)
  // without reading anyone else's.
  `
  CREATE INDEX holds_active_by_user ON holds (user_id, expires_at, hold_id) WHERE status = 'ACTIVE';
  `,
  // v9: the door (issue 20). A ticket is found by the short code printed on it within its show;
  // each ticket carries its buyer's username key so the attendee search is a range of one index
  // per show (never a walk of all users or all tickets); the show's admitting and used tickets are
  // counters kept by issue and check-in, so the door's live count reads one row.
  `
  CREATE INDEX tickets_by_show_code ON tickets (show_id, code);
  ALTER TABLE tickets ADD COLUMN buyer_key TEXT NOT NULL DEFAULT '';
  UPDATE tickets SET buyer_key = (SELECT u.username_key FROM users u WHERE u.user_id = tickets.user_id);
  CREATE INDEX tickets_attendees ON tickets (show_id, buyer_key, order_id, seq);
  CREATE TABLE show_door_counts (
    show_id TEXT PRIMARY KEY,
    admitting INTEGER NOT NULL CHECK (admitting >= 0),
    checked_in INTEGER NOT NULL CHECK (checked_in >= 0 AND checked_in <= admitting)
  ) WITHOUT ROWID;
  INSERT INTO show_door_counts (show_id, admitting, checked_in)
    SELECT show_id, SUM(status <> 'INVALID'), SUM(status = 'USED') FROM tickets GROUP BY show_id;
  `,
  // v10: a show's description, picture and currency, and a version its edits apply to; what each
  // counted section sold (issue 20).
  `
  ALTER TABLE shows ADD COLUMN description TEXT NOT NULL DEFAULT '';
  ALTER TABLE shows ADD COLUMN image_url TEXT;
  -- NULL: priced in the configured currency (shows from before currencies were stored).
  ALTER TABLE shows ADD COLUMN currency TEXT;
  -- Raised by every edit; an edit applies only to the version it was decided on.
  ALTER TABLE shows ADD COLUMN version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0);
  -- Units of a counted section sold (CONFIRMED holds' UNITS lines): raised by every sale, so the
  -- organizer's figures never read the holds. Counted as they stand today.
  ALTER TABLE sections ADD COLUMN sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0);
  UPDATE sections SET sold = coalesce((
    SELECT sum(l.quantity) FROM hold_lines l JOIN holds h ON h.hold_id = l.hold_id
    WHERE h.show_id = sections.show_id AND l.section_id = sections.section_id AND l.seat_id IS NULL AND l.claim = 1 AND h.status = 'CONFIRMED'
  ), 0) WHERE sell_by = 'QUANTITY';
  `,
  // v11: the local message table (issue 22): every change anyone outside may care about writes a
  // row here in the same transaction as the change. INTEGER PRIMARY KEY order is commit order (one
  // writer). The row is one more insert in every claim, so it has no index besides its key: the
  // event id is a random UUID (unique without an index to prove it), retention walks the oldest
  // ids, and ids are never reused because retention never deletes the newest row (a reader
  // parked at id 100 must never miss a new row 1). Relay cursors move by compare-and-set.
  `
  CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    show_id TEXT,
    created_at INTEGER NOT NULL,
    origin TEXT NOT NULL,
    data TEXT NOT NULL,
    changes TEXT
  );
  CREATE TABLE IF NOT EXISTS relay_cursors (
    name TEXT PRIMARY KEY,
    position TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // v12: signed webhooks out (issue 22 item 4): endpoints, one delivery per (endpoint, event),
  // and every attempt of each, so an admin sees when and how each one was tried.
  `
  CREATE TABLE webhooks (
    webhook_id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ACTIVE','DISABLED')),
    created_at INTEGER NOT NULL,
    disabled_reason TEXT
  );
  CREATE TABLE webhook_deliveries (
    delivery_id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL CHECK (attempts >= 0),
    status TEXT NOT NULL CHECK (status IN ('PENDING','DELIVERED','FAILED','DISABLED')),
    next_attempt_at INTEGER,
    last_status_code INTEGER,
    last_duration_ms INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  -- A redelivered outbox event never makes a second delivery to the same endpoint.
  CREATE UNIQUE INDEX webhook_deliveries_one_per_event ON webhook_deliveries (webhook_id, event_id);
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, delivery_id) WHERE status = 'PENDING';
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, delivery_id);
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(delivery_id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    at INTEGER NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error TEXT,
    outcome TEXT NOT NULL CHECK (outcome IN ('DELIVERED','RETRY','FAILED','GONE')),
    next_attempt_at INTEGER,
    PRIMARY KEY (delivery_id, attempt)
  ) WITHOUT ROWID;
  `,
  // v13 (issue 22): values every process must agree
  // on, first writer wins (SettingsStore.settleSetting). IF NOT EXISTS, so its place in the array
  // does not matter when the parallel branches' migrations are merged before it.
  `
  CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 100),
    value TEXT NOT NULL CHECK (length(value) <= 16384),
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // v14 (issue 23, flash sales): orders say what they sell (kind) and
  // which campaign (activity_id, NULL on a show's order, whose activity is its show); a flash
  // sale's own record beside the show that carries its stock (domain/flash-sale.ts).
  `
  ALTER TABLE orders ADD COLUMN kind TEXT NOT NULL DEFAULT 'SHOW' CHECK (kind IN ('SHOW','FLASH_SALE','BARGAIN'));
  ALTER TABLE orders ADD COLUMN activity_id TEXT;
  -- NULL on a show; FLASH_SALE on the show that carries a flash sale's stock (never held as a show).
  ALTER TABLE shows ADD COLUMN campaign TEXT CHECK (campaign IS NULL OR campaign IN ('FLASH_SALE'));
  CREATE INDEX orders_by_user_activity ON orders (user_id, activity_id) WHERE activity_id IS NOT NULL;
  CREATE TABLE flash_sales (
    flash_sale_id TEXT PRIMARY KEY,
    max_per_user INTEGER NOT NULL CHECK (max_per_user >= 1),
    offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),
    -- [{"itemId","originalPriceCents"}]: read with the sale, never searched.
    items TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // v15: code pools (issue 23, seed 004) and the keyset orders of the CSV exports. IF NOT EXISTS
  // throughout, so its place in the array does not matter once the branches before it are merged.
  `
  CREATE TABLE IF NOT EXISTS code_pools (
    pool_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    image_url TEXT,
    sale_starts_at INTEGER NOT NULL,
    sale_ends_at INTEGER NOT NULL CHECK (sale_ends_at > sale_starts_at),
    created_at INTEGER NOT NULL,
    imported INTEGER NOT NULL DEFAULT 0 CHECK (imported >= 0)
  );
  -- One row per code; user_id NULL until a grab hands it out. The code's id keeps import order,
  -- the order codes are handed out in.
  CREATE TABLE IF NOT EXISTS pool_codes (
    code_id INTEGER PRIMARY KEY,
    pool_id TEXT NOT NULL REFERENCES code_pools(pool_id),
    code TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 128),
    user_id TEXT REFERENCES users(user_id),
    grabbed_at INTEGER,
    CHECK ((user_id IS NULL) = (grabbed_at IS NULL))
  );
  -- A code is in a pool once: a re-import inserts nothing.
  CREATE UNIQUE INDEX IF NOT EXISTS pool_codes_unique_code ON pool_codes (pool_id, code);
  -- One participation per buyer and pool (NULLs, the codes not handed out, are distinct).
  CREATE UNIQUE INDEX IF NOT EXISTS pool_codes_one_per_user ON pool_codes (pool_id, user_id);
  -- The next code to hand out, and the count of those left: only unassigned codes are indexed.
  CREATE INDEX IF NOT EXISTS pool_codes_free ON pool_codes (pool_id, code_id) WHERE user_id IS NULL;
  CREATE INDEX IF NOT EXISTS pool_codes_winners ON pool_codes (pool_id, grabbed_at, code) WHERE user_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS pool_codes_by_user ON pool_codes (user_id, grabbed_at) WHERE user_id IS NOT NULL;
  -- The exports page through a show's orders and tickets by (time, id).
  CREATE INDEX IF NOT EXISTS orders_export ON orders (show_id, created_at, order_id);
  CREATE INDEX IF NOT EXISTS tickets_export ON tickets (show_id, issued_at, ticket_id);
  `,
  // v16 (issue 22, jobs): singleton
  // periodic sweeps. A lease per sweep (who runs it, until when), taken by compare-and-set, and the sweep's
  // keyset cursor, so a pass goes on where the last run stopped whichever process ran it.
  `
  CREATE TABLE IF NOT EXISTS sweeps (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL DEFAULT '',
    lease_until INTEGER NOT NULL DEFAULT 0,
    cursor_at INTEGER,
    cursor_id TEXT
  );
  `,
  // v17, issue 22 item 6 (etag; appended after main's v16): a stored version of each section's counted stock,
  // raised by one by every change of `available`, reported in every stock change (BucketState,
  // bucket 0), so the read model's show version and ETag derive from the stored state.
  `
  ALTER TABLE sections ADD COLUMN stock_version INTEGER NOT NULL DEFAULT 0;
  `,
  // Bargains (issue 23 item 4, seed 001 砍价; v18). A bargain's
  // show says BARGAIN in shows.campaign: the column's CHECK is widened by renaming the old column
  // away (SQLite cannot alter a CHECK), adding the new one, copying, and dropping the old.
  `
  ALTER TABLE shows RENAME COLUMN campaign TO campaign_v1;
  ALTER TABLE shows ADD COLUMN campaign TEXT CHECK (campaign IS NULL OR campaign IN ('FLASH_SALE','BARGAIN'));
  UPDATE shows SET campaign = campaign_v1 WHERE campaign_v1 IS NOT NULL;
  ALTER TABLE shows DROP COLUMN campaign_v1;
  CREATE TABLE bargains (
    bargain_id TEXT PRIMARY KEY,
    goods TEXT NOT NULL,
    original_price_cents INTEGER NOT NULL CHECK (original_price_cents > 0),
    floor_price_cents INTEGER NOT NULL CHECK (floor_price_cents >= 0 AND floor_price_cents < original_price_cents),
    cut_min_cents INTEGER NOT NULL CHECK (cut_min_cents >= 1),
    cut_max_cents INTEGER NOT NULL CHECK (cut_max_cents >= cut_min_cents),
    min_cuts INTEGER NOT NULL CHECK (min_cuts >= 1),
    offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- One buyer's attempt at a bargain. The floor is copied in so the CHECK can back the cut's clamp.
  CREATE TABLE bargain_orders (
    bargain_order_id TEXT PRIMARY KEY,
    bargain_id TEXT NOT NULL REFERENCES bargains(bargain_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    current_price_cents INTEGER NOT NULL,
    floor_price_cents INTEGER NOT NULL,
    cuts INTEGER NOT NULL DEFAULT 0 CHECK (cuts >= 0),
    order_id TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    CHECK (current_price_cents >= floor_price_cents)
  ) WITHOUT ROWID;
  -- One bargain order per buyer and bargain (start twice: the same one).
  CREATE UNIQUE INDEX bargain_orders_one_per_user ON bargain_orders (bargain_id, user_id);
  CREATE INDEX bargain_orders_by_order ON bargain_orders (bargain_id, created_at, bargain_order_id);
  CREATE TABLE bargain_cuts (
    bargain_order_id TEXT NOT NULL REFERENCES bargain_orders(bargain_order_id),
    helper_id TEXT NOT NULL REFERENCES users(user_id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
    cut_at INTEGER NOT NULL
  );
  -- One cut per helper and bargain order (seed 001 砍价 3: each friend cuts once).
  CREATE UNIQUE INDEX bargain_cuts_one_per_helper ON bargain_cuts (bargain_order_id, helper_id);
  CREATE INDEX bargain_cuts_by_time ON bargain_cuts (bargain_order_id, cut_at);
  -- Code pools in the activity catalog: listed in its order (the index), and an organizer's offline switch.
  ALTER TABLE code_pools ADD COLUMN offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1));
  -- Organizers' changes are compare-and-set on it (no lost update).
  ALTER TABLE code_pools ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX code_pools_catalog ON code_pools (sale_ends_at, pool_id);
  `,
  // Buyer notifications (issue 25 item 7), the buyer's language and address, and the audit
  // trail of organizer and admin changes (issue 26 item 5).
  `
  CREATE TABLE notifications (
    notification_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    event_id TEXT NOT NULL,
    show_id TEXT,
    order_id TEXT,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    read_at INTEGER,
    email_status TEXT NOT NULL CHECK (email_status IN ('NONE','PENDING','SENDING','SENT','FAILED','NO_ADDRESS')),
    email_attempts INTEGER NOT NULL DEFAULT 0 CHECK (email_attempts >= 0),
    email_next_attempt_at INTEGER,
    email_sent_at INTEGER,
    email_last_error TEXT
  );
  -- One notification per (event, buyer, kind): the relay delivers at least once.
  CREATE UNIQUE INDEX notifications_once ON notifications (event_id, user_id, kind);
  CREATE INDEX notifications_by_user ON notifications (user_id, created_at, notification_id);
  CREATE INDEX notifications_email_due ON notifications (email_next_attempt_at) WHERE email_status IN ('PENDING','SENDING');
  CREATE TABLE user_preferences (
    user_id TEXT PRIMARY KEY REFERENCES users(user_id),
    language TEXT CHECK (language IN ('en','zh-CN')),
    email TEXT,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX orders_by_show_user ON orders (show_id, user_id);
  CREATE TABLE audit_log (
    entry_id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    actor_id TEXT NOT NULL,
    actor_role TEXT NOT NULL,
    action TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    show_id TEXT,
    before TEXT,
    after TEXT
  );
  CREATE INDEX audit_log_by_time ON audit_log (at, entry_id);
  CREATE INDEX audit_log_by_entity ON audit_log (entity_type, entity_id, at);
  CREATE INDEX audit_log_by_actor ON audit_log (actor_id, at);
  `,
  // Waitlist (issue 25 item 5, 候补): entries in order of joining; one live entry per buyer and show.
  `
  CREATE TABLE waitlist_entries (
    entry_id TEXT PRIMARY KEY,
    show_id TEXT NOT NULL REFERENCES shows(show_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    section_id TEXT,
    quantity INTEGER NOT NULL CHECK (quantity >= 1),
    status TEXT NOT NULL CHECK (status IN ('WAITING','OFFERED','CLAIMED','LAPSED','LEFT')),
    joined_at INTEGER NOT NULL,
    hold_id TEXT,
    claim_until INTEGER,
    updated_at INTEGER NOT NULL,
    CHECK ((status = 'WAITING') = (hold_id IS NULL) OR status = 'LEFT')
  );
  -- The guard of a join: one live entry per buyer and show.
  CREATE UNIQUE INDEX waitlist_one_live_per_user ON waitlist_entries (show_id, user_id) WHERE status IN ('WAITING','OFFERED');
  -- The line: WAITING entries of a show in order of joining.
  CREATE INDEX waitlist_line ON waitlist_entries (show_id, joined_at, entry_id) WHERE status = 'WAITING';
  CREATE UNIQUE INDEX waitlist_by_hold ON waitlist_entries (hold_id) WHERE hold_id IS NOT NULL;
  CREATE INDEX waitlist_by_user ON waitlist_entries (user_id, joined_at);
  `,
  // Exchanges (issue 25 item 4, 改签): one row per completed swap; one exchange per new hold.
  `
  CREATE TABLE exchanges (
    exchange_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    old_order_id TEXT NOT NULL REFERENCES orders(order_id),
    old_show_id TEXT NOT NULL,
    old_ticket_ids TEXT NOT NULL,
    new_order_id TEXT NOT NULL REFERENCES orders(order_id),
    new_show_id TEXT NOT NULL,
    new_hold_id TEXT NOT NULL UNIQUE,
    new_ticket_ids TEXT NOT NULL,
    difference_cents INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX exchanges_by_old_order ON exchanges (old_order_id, created_at);
  `,
  // Issue 24 item 4: the blocklist. Entries are never deleted (a lift is a state), so the count
  // and the lifted count are a change marker every process can poll cheaply.
  `
  CREATE TABLE blocklist (
    block_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('USER','IP')),
    user_id TEXT REFERENCES users(user_id),
    username TEXT,
    cidr TEXT,
    reason TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    status TEXT NOT NULL CHECK (status IN ('ACTIVE','LIFTED')),
    lifted_at INTEGER,
    CHECK ((kind = 'USER' AND user_id IS NOT NULL AND cidr IS NULL) OR (kind = 'IP' AND cidr IS NOT NULL AND user_id IS NULL)),
    CHECK ((status = 'LIFTED') = (lifted_at IS NOT NULL))
  );
  CREATE INDEX blocklist_active ON blocklist (status, created_at, block_id);
  `,
  // Waiting rooms (issue 24 item 1): an activity's room, and the places in its line.
  `
  CREATE TABLE waiting_rooms (
    activity_id TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    admit_per_minute INTEGER NOT NULL CHECK (admit_per_minute BETWEEN 0 AND 60000),
    admission_seconds INTEGER NOT NULL CHECK (admission_seconds BETWEEN 30 AND 3600),
    version INTEGER NOT NULL CHECK (version >= 1),
    updated_at INTEGER NOT NULL,
    -- The admitter's clock (compare-and-set by each pass, whichever process runs it) and carried fraction.
    admit_clock INTEGER NOT NULL DEFAULT 0,
    admit_carry REAL NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE TABLE queue_entries (
    queue_id TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    state TEXT NOT NULL CHECK (state IN ('WAITING','ADMITTED','EXPIRED','LEFT','BLOCKED','SOLD_OUT')),
    band INTEGER NOT NULL CHECK (band IN (0, 1)),
    draw INTEGER NOT NULL CHECK (draw >= 0),
    joined_at INTEGER NOT NULL,
    admitted_at INTEGER,
    admitted_until INTEGER,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- One place per user and activity, whatever its state (joining twice answers the same place).
  CREATE UNIQUE INDEX queue_entries_one_per_user ON queue_entries (activity_id, user_id);
  -- Admission order; a position is a counted range of it.
  CREATE INDEX queue_entries_line ON queue_entries (activity_id, state, band, draw, joined_at, queue_id);
  CREATE INDEX queue_entries_admitted ON queue_entries (state, admitted_until);
  CREATE INDEX queue_entries_admitted_at ON queue_entries (activity_id, admitted_at);
  CREATE INDEX queue_entries_by_user ON queue_entries (user_id, state);
  `,
  // Issue 25 items 6 and 8: discount codes (uses counted in the order's transaction) and each
  // order's contact and discount.
  `
  ALTER TABLE orders ADD COLUMN contact_name TEXT;
  ALTER TABLE orders ADD COLUMN contact_phone TEXT;
  ALTER TABLE orders ADD COLUMN contact_email TEXT;
  ALTER TABLE orders ADD COLUMN discount_code TEXT;
  ALTER TABLE orders ADD COLUMN discount_cents INTEGER NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);
  -- The provider's hosted payment page (Stripe Checkout), so an unpaid order can be paid again from its page.
  ALTER TABLE payments ADD COLUMN checkout_url TEXT;
  CREATE TABLE discount_codes (
    code TEXT PRIMARY KEY,
    percent_off INTEGER CHECK (percent_off IS NULL OR percent_off BETWEEN 1 AND 100),
    amount_off_cents INTEGER CHECK (amount_off_cents IS NULL OR amount_off_cents >= 1),
    show_ids TEXT,
    valid_from INTEGER NOT NULL,
    valid_until INTEGER NOT NULL CHECK (valid_until > valid_from),
    max_uses INTEGER NOT NULL CHECK (max_uses >= 1),
    per_user_max INTEGER NOT NULL CHECK (per_user_max >= 1),
    uses INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0),
    status TEXT NOT NULL CHECK (status IN ('ACTIVE','DISABLED')),
    created_at INTEGER NOT NULL,
    CHECK ((percent_off IS NULL) <> (amount_off_cents IS NULL))
  ) WITHOUT ROWID;
  CREATE INDEX discount_codes_by_created ON discount_codes (created_at DESC, code);
  -- Each buyer's uses of a code held now: the per-user cap is a conditional upsert on this row.
  CREATE TABLE discount_user_uses (
    code TEXT NOT NULL REFERENCES discount_codes(code),
    user_id TEXT NOT NULL,
    uses INTEGER NOT NULL CHECK (uses >= 0),
    PRIMARY KEY (code, user_id)
  ) WITHOUT ROWID;
  -- One use per order, given back at most once (returned_at).
  CREATE TABLE discount_redemptions (
    order_id TEXT PRIMARY KEY,
    code TEXT NOT NULL REFERENCES discount_codes(code),
    user_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    returned_at INTEGER
  ) WITHOUT ROWID;
  `,
  // Issue 25 (refunds): an order refunded whole waits in REFUND_PENDING for the provider; a partly
  // refunded one stays TICKETED and counts what went back (refunded_cents). Each refund is a row
  // of its own: its id is the provider's idempotency key, so two partial refunds are two refunds.
  // Shows carry their refund and exchange policy.
  {
    foreignKeysOff: true,
    run(db) {
      widenTable(db, 'orders', "'CANCELLED','REFUNDED')", "'CANCELLED','REFUNDED','REFUND_PENDING')");
      db.exec(`
      ALTER TABLE orders ADD COLUMN refunded_cents INTEGER NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= amount_cents);
      ALTER TABLE shows ADD COLUMN refund_until_hours_before INTEGER CHECK (refund_until_hours_before IS NULL OR refund_until_hours_before >= 0);
      ALTER TABLE shows ADD COLUMN exchange_until_hours_before INTEGER CHECK (exchange_until_hours_before IS NULL OR exchange_until_hours_before >= 0);
      ALTER TABLE shows ADD COLUMN cancelled_at INTEGER;
      ALTER TABLE shows ADD COLUMN cancel_reason TEXT;
      CREATE TABLE refunds (
        refund_id TEXT PRIMARY KEY,
        order_id TEXT NOT NULL REFERENCES orders(order_id),
        user_id TEXT NOT NULL,
        show_id TEXT NOT NULL,
        payment_id TEXT,
        amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
        ticket_ids TEXT NOT NULL,
        whole INTEGER NOT NULL CHECK (whole IN (0, 1)),
        status TEXT NOT NULL CHECK (status IN ('PENDING','REFUNDED','REFUSED')),
        reason TEXT,
        requested_by TEXT NOT NULL CHECK (requested_by IN ('BUYER','ORGANIZER')),
        idempotency_key TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- A retried request (same key) is the same refund, never a second one.
      CREATE UNIQUE INDEX refunds_one_per_key ON refunds (order_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX refunds_by_order ON refunds (order_id, created_at, refund_id);
      CREATE INDEX refunds_pending ON refunds (updated_at, refund_id) WHERE status = 'PENDING';
      `);
    },
  },  // Issue 32 (money is a ledger): each ticket keeps its paid price, its share of the order's charge
  // (NULL on tickets issued before: read, they are allocated from the order's charge); exchanges
  // are found from the order they created (a refund follows the chain back to the payment).
  // Payments say what refunds gave back: PARTIALLY_REFUNDED, then REFUNDED (the CHECK widened).
  {
    foreignKeysOff: true,
    run(db) {
      widenTable(db, 'payments', "'REFUND_PENDING','REFUNDED')", "'REFUND_PENDING','REFUNDED','PARTIALLY_REFUNDED')");
      db.exec(`
      ALTER TABLE tickets ADD COLUMN paid_cents INTEGER CHECK (paid_cents IS NULL OR paid_cents >= 0);
      CREATE INDEX exchanges_by_new_order ON exchanges (new_order_id);
      CREATE INDEX refunds_by_payment ON refunds (payment_id) WHERE status = 'REFUNDED';
      `);
    },
  },
  // Issue 32 (dearer exchanges): an exchange is recorded PENDING while its difference awaits
  // payment, then COMPLETED or ABANDONED; every exchange before this was a completed swap.
  `ALTER TABLE exchanges ADD COLUMN status TEXT NOT NULL DEFAULT 'COMPLETED' CHECK (status IN ('PENDING','COMPLETED','ABANDONED'));
  ALTER TABLE refunds ADD COLUMN source_payment_id TEXT;
  ALTER TABLE refunds ADD COLUMN source_cents INTEGER NOT NULL DEFAULT 0 CHECK (source_cents >= 0);
  CREATE INDEX refunds_by_source_payment ON refunds (source_payment_id) WHERE status = 'REFUNDED' AND source_payment_id IS NOT NULL;`,
];

/**
 * Backfills each user's username key (computed in JS: SQLite has no NFKC) and makes it unique.
 * Names that collide under the new rule were both legal before: the oldest account keeps the plain
 * key, a later one gets a key no normalised name can equal, so the migration never fails and each
 * such account still signs in with the exact spelling it registered (exact names are looked up first).
 */
function addUsernameKeys(db: Database): void {
  db.exec("ALTER TABLE users ADD COLUMN username_key TEXT NOT NULL DEFAULT ''");
  const users = db.prepare('SELECT user_id, username FROM users ORDER BY created_at, user_id').all() as { user_id: string; username: string }[];
  const setKey = db.prepare('UPDATE users SET username_key = ? WHERE user_id = ?');
  const taken = new Set<string>();
  for (const user of users) {
    const key = usernameKey(user.username);
    setKey.run(taken.has(key) ? `${key}\u0000${user.user_id}` : key, user.user_id);
    taken.add(key);
  }
  db.exec('CREATE UNIQUE INDEX users_one_per_username_key ON users (username_key)');
}

/**
 * v6: sections with their own price and counted stock, reservation lines instead of seat-id lists,
 * a per-buyer unit counter, and tickets that may name no seat. Every guard the booking loop relies
 * on is a constraint or index here, so it holds whichever process or backend writes:
 * - sections.available stays between 0 and capacity (a take that would oversell, or a give-back
 *   that would make stock out of nothing, fails the statement);
 * - user_show_units.units never goes below 0 (a double give-back fails);
 * - one live claim per seat (hold_lines_one_live_claim), one live order per hold (kept from v1),
 *   one admitting ticket per seat (tickets_one_per_seat), one ticket per (order, number).
 * Existing data is carried over: sections from each show's seat map (sold by seat, as before),
 * hold lines from holds.seat_ids with their live claims, the units each buyer holds or bought,
 * and tickets with their seat's section.
 */
function addInventory(db: Database): void {
  const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
  const before = { lines: count('SELECT coalesce(sum(json_array_length(seat_ids)), 0) AS n FROM holds'), tickets: count('SELECT count(*) AS n FROM tickets') };
  db.exec(`
  CREATE TABLE sections (
    show_id TEXT NOT NULL REFERENCES shows(show_id),
    section_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('SEATED','GENERAL_ADMISSION')),
    sell_by TEXT NOT NULL CHECK (sell_by IN ('SEAT','QUANTITY')),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    rows_count INTEGER,
    seats_per_row INTEGER,
    capacity INTEGER NOT NULL CHECK (capacity >= 0),
    -- Units not tied to a live hold or a sale: free seats of a section sold by seat, the untaken
    -- count of a counted one. Every claim decrements it, every give-back increments it.
    available INTEGER NOT NULL,
    PRIMARY KEY (show_id, section_id),
    CHECK (available BETWEEN 0 AND capacity),
    CHECK ((kind = 'SEATED') = (rows_count IS NOT NULL AND seats_per_row IS NOT NULL)),
    CHECK (kind = 'SEATED' OR sell_by = 'QUANTITY'),
    CHECK (kind <> 'SEATED' OR capacity = rows_count * seats_per_row)
  ) WITHOUT ROWID;

  INSERT INTO sections (show_id, section_id, position, name, kind, sell_by, price_cents, rows_count, seats_per_row, capacity, available)
    SELECT s.show_id, json_extract(j.value, '$.id'), j.key, json_extract(j.value, '$.name'), 'SEATED', 'SEAT',
      json_extract(j.value, '$.priceCents'), json_extract(j.value, '$.rows'), json_extract(j.value, '$.seatsPerRow'),
      json_extract(j.value, '$.rows') * json_extract(j.value, '$.seatsPerRow'),
      (SELECT count(*) FROM seats t WHERE t.show_id = s.show_id AND t.section = json_extract(j.value, '$.id') AND t.status = 'AVAILABLE')
    FROM shows s, json_each(s.seat_map, '$.sections') j;

  -- Price lives on the section now; a seat says whether it is accessible.
  ALTER TABLE seats DROP COLUMN price_cents;
  ALTER TABLE seats ADD COLUMN accessible INTEGER NOT NULL DEFAULT 0 CHECK (accessible IN (0, 1));
  -- Best-available (and picking seats at issue) reads the free seats of a few rows nearest a point:
  -- only free seats are in this index, with everything the chooser needs, so a row is one short
  -- index range and a taken seat costs nothing to skip.
  CREATE INDEX seats_free_by_row ON seats (show_id, section, row_no, seat_no, accessible) WHERE status = 'AVAILABLE';

  -- One row per seat of a SEATS line (quantity 1), one per UNITS line (seat_id NULL). claim = 1
  -- while the hold is ACTIVE or CONFIRMED, NULL once it lapsed: clearing it is the give-back,
  -- so a line's seats or units return exactly once, however often a lapse is attempted.
  CREATE TABLE hold_lines (
    hold_id TEXT NOT NULL REFERENCES holds(hold_id),
    line_no INTEGER NOT NULL,
    show_id TEXT NOT NULL,
    section_id TEXT NOT NULL,
    seat_id TEXT,
    quantity INTEGER NOT NULL CHECK (quantity >= 1),
    claim INTEGER CHECK (claim = 1),
    PRIMARY KEY (hold_id, line_no),
    CHECK (seat_id IS NULL OR quantity = 1)
  ) WITHOUT ROWID;
  -- The schema's guarantee that a seat belongs to at most one live hold, whatever the code does.
  CREATE UNIQUE INDEX hold_lines_one_live_claim ON hold_lines (show_id, seat_id) WHERE claim = 1 AND seat_id IS NOT NULL;

  INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim)
    SELECT h.hold_id, j.key, h.show_id, t.section, j.value, 1, hs.claim
    FROM holds h, json_each(h.seat_ids) j
    JOIN seats t ON t.show_id = h.show_id AND t.seat_id = j.value
    LEFT JOIN hold_seats hs ON hs.hold_id = h.hold_id AND hs.seat_id = j.value;
  DROP TABLE hold_seats;

  ALTER TABLE holds ADD COLUMN units INTEGER NOT NULL DEFAULT 0 CHECK (units >= 0);
  UPDATE holds SET units = json_array_length(seat_ids);
  ALTER TABLE holds DROP COLUMN seat_ids;
  ALTER TABLE orders DROP COLUMN seat_ids;

  -- Units one buyer holds (ACTIVE holds) or bought (CONFIRMED holds whose order is live) of one
  -- show. A claim increments it conditionally (units + n <= the limit), a lapse decrements it.
  CREATE TABLE user_show_units (
    user_id TEXT NOT NULL,
    show_id TEXT NOT NULL,
    units INTEGER NOT NULL CHECK (units >= 0),
    PRIMARY KEY (user_id, show_id)
  ) WITHOUT ROWID;
  INSERT INTO user_show_units (user_id, show_id, units)
    SELECT h.user_id, h.show_id, SUM(h.units) FROM holds h
    WHERE h.status = 'ACTIVE' OR (h.status = 'CONFIRMED' AND EXISTS (
      SELECT 1 FROM orders o WHERE o.hold_id = h.hold_id AND o.status NOT IN ('CANCELLED','REFUNDED')))
    GROUP BY h.user_id, h.show_id;
  DROP INDEX holds_claiming_by_user;

  -- Tickets may name no seat (general admission); each names its section and its number in the
  -- order, so issuing twice cannot double an order's tickets.
  CREATE TABLE tickets_v6 (
    ticket_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    show_id TEXT NOT NULL,
    section_id TEXT NOT NULL,
    seat_id TEXT,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    code TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL CHECK (status IN ('VALID','USED','INVALID')),
    issued_at INTEGER NOT NULL,
    used_at INTEGER,
    checkin_nonce TEXT,
    checkin_by TEXT,
    checkin_gate TEXT,
    checkin_device TEXT,
    UNIQUE (order_id, seq)
  );
  INSERT INTO tickets_v6 (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at, used_at,
      checkin_nonce, checkin_by, checkin_gate, checkin_device)
    SELECT k.ticket_id, k.order_id, k.user_id, k.show_id, t.section, k.seat_id,
      row_number() OVER (PARTITION BY k.order_id ORDER BY k.seat_id), k.code, k.status, k.issued_at, k.used_at,
      k.checkin_nonce, k.checkin_by, k.checkin_gate, k.checkin_device
    FROM tickets k JOIN seats t ON t.show_id = k.show_id AND t.seat_id = k.seat_id;
  DROP TABLE tickets;
  ALTER TABLE tickets_v6 RENAME TO tickets;
  -- One admitting ticket per seat, ever.
  CREATE UNIQUE INDEX tickets_one_per_seat ON tickets (show_id, seat_id) WHERE status <> 'INVALID' AND seat_id IS NOT NULL;
  CREATE INDEX tickets_by_user ON tickets (user_id, issued_at);
  `);
  // Each stored seat map in today's shape: every section so far was seated and sold by seat.
  const setSeatMap = db.prepare('UPDATE shows SET seat_map = ? WHERE show_id = ?');
  for (const show of db.prepare('SELECT show_id, seat_map FROM shows').all() as { show_id: string; seat_map: string }[]) {
    const spec = JSON.parse(show.seat_map) as { sections?: Record<string, unknown>[] };
    const sections = (spec.sections ?? []).map((section) => ({ kind: 'SEATED', sellBy: 'SEAT', accessible: [], ...section }));
    setSeatMap.run(JSON.stringify({ ...spec, sections }), show.show_id);
  }
  // Every row carried over (a seat id naming no seat would drop its line or ticket), or the
  // migration fails and the database stays at v5.
  const after = { lines: count('SELECT count(*) AS n FROM hold_lines'), tickets: count('SELECT count(*) AS n FROM tickets') };
  const orphans = count('SELECT count(*) AS n FROM seats t WHERE NOT EXISTS (SELECT 1 FROM sections c WHERE c.show_id = t.show_id AND c.section_id = t.section)');
  if (after.lines !== before.lines || after.tickets !== before.tickets || orphans > 0) {
    throw new Error(`migration v6 would lose data: ${JSON.stringify({ before, after, seatsWithoutSection: orphans })}`);
  }
}

export function migrate(db: Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version] as Migration;
    const rebuild = typeof step === 'object';
    const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
    if (rebuild) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        if (typeof step === 'string') db.exec(step);
        else if (typeof step === 'function') step(db);
        else {
          step.run(db);
          const broken = db.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) throw new Error(`migration v${version + 1} would break ${broken.length} foreign keys`);
        }
        db.pragma(`user_version = ${version + 1}`);
      })();
    } finally {
      if (rebuild) db.pragma(`foreign_keys = ${foreignKeys === 1 ? 'ON' : 'OFF'}`);
    }
  }
  return migrations.length;
}

/**
 * Rebuilds `table` with `from` replaced by `to` in its CREATE statement (a CHECK widened), rows,
 * indexes and all. Runs inside a foreignKeysOff step.
 */
function widenTable(db: Database, table: string, from: string, to: string): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string;
  const indexes = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").pluck().all(table) as string[];
  const widened = sql.replace(from, to).replace(/^CREATE TABLE "?\w+"?/, `CREATE TABLE ${table}_widened`);
  if (!widened.includes(to)) throw new Error(`cannot widen ${table}: "${from}" not found`);
  db.exec(`${widened}; INSERT INTO ${table}_widened SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE ${table}_widened RENAME TO ${table};`);
  for (const index of indexes) db.exec(index);
}
