import type { PgMigration } from './migrate.js';

/**
 * The PostgreSQL schema, versioned. Never edit a released entry: append a new one.
 * Mirrors the SQLite v6 schema (src/adapters/sqlite/migrations.ts) table for table, with
 * PostgreSQL types: times are bigint epoch milliseconds, ids text. Every guard the booking loop
 * relies on is a constraint or an index here, so it holds whatever the code does and however many
 * transactions run side by side:
 * - one live claim per seat: hold_lines_one_live_claim (partial unique);
 * - a seat is AVAILABLE exactly when no hold owns it: seats CHECK;
 * - counted stock between 0 and capacity: stock_buckets CHECK (per bucket, hence per section);
 * - a buyer's units never below 0: user_show_units CHECK;
 * - one live order per hold: orders_one_live_per_hold (partial unique);
 * - one order per (user, idempotency key): UNIQUE;
 * - one admitting ticket per seat: tickets_one_per_seat (partial unique); one ticket per (order, seq).
 * Difference from SQLite: counted stock lives in N bucket rows per section (stock_buckets) instead
 * of one `available` column, so a rush on one general-admission section spreads its row locks;
 * a seated section sold by seat keeps no counter at all (its availability is its AVAILABLE seats),
 * so a seat claim never touches a per-section hot row.
 */
export const pgMigrations: readonly PgMigration[] = [
  {
    version: 1,
    name: 'inventory engine',
    sql: `
    CREATE TABLE users (
      user_id text PRIMARY KEY,
      username text NOT NULL UNIQUE,
      username_key text NOT NULL,
      password_hash text NOT NULL,
      role text NOT NULL CHECK (role IN ('BUYER','STAFF','ADMIN')),
      created_at bigint NOT NULL
    );
    CREATE UNIQUE INDEX users_one_per_username_key ON users (username_key);
    -- The LAST_ADMIN guard locks and counts these rows.
    CREATE INDEX users_admins ON users (user_id) WHERE role = 'ADMIN';

    CREATE TABLE shows (
      show_id text PRIMARY KEY,
      title text NOT NULL,
      venue text NOT NULL,
      city text NOT NULL,
      starts_at bigint NOT NULL,
      sale_starts_at bigint NOT NULL,
      sale_ends_at bigint NOT NULL,
      seat_map text NOT NULL,
      capacity integer NOT NULL CHECK (capacity > 0),
      max_seats_per_user integer CHECK (max_seats_per_user IS NULL OR max_seats_per_user >= 1),
      created_at bigint NOT NULL,
      CHECK (sale_starts_at < sale_ends_at)
    );

    CREATE TABLE sections (
      show_id text NOT NULL REFERENCES shows(show_id),
      section_id text NOT NULL,
      position integer NOT NULL,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('SEATED','GENERAL_ADMISSION')),
      sell_by text NOT NULL CHECK (sell_by IN ('SEAT','QUANTITY')),
      price_cents integer NOT NULL CHECK (price_cents >= 0),
      rows_count integer,
      seats_per_row integer,
      capacity integer NOT NULL CHECK (capacity >= 0),
      PRIMARY KEY (show_id, section_id),
      CHECK ((kind = 'SEATED') = (rows_count IS NOT NULL AND seats_per_row IS NOT NULL)),
      CHECK (kind = 'SEATED' OR sell_by = 'QUANTITY'),
      CHECK (kind <> 'SEATED' OR capacity = rows_count * seats_per_row)
    );

    -- Counted stock (GENERAL_ADMISSION, or SEATED sold by QUANTITY), split into buckets whose
    -- capacities add up to the section's. A claim takes from one bucket picked at random (then the
    -- others), a give-back returns to the buckets it was taken from (hold_lines.bucket).
    CREATE TABLE stock_buckets (
      show_id text NOT NULL,
      section_id text NOT NULL,
      bucket integer NOT NULL CHECK (bucket >= 0),
      capacity integer NOT NULL CHECK (capacity >= 0),
      available integer NOT NULL,
      PRIMARY KEY (show_id, section_id, bucket),
      FOREIGN KEY (show_id, section_id) REFERENCES sections(show_id, section_id),
      CONSTRAINT stock_within_capacity CHECK (available BETWEEN 0 AND capacity)
    );

    CREATE TABLE seats (
      show_id text NOT NULL REFERENCES shows(show_id),
      seat_id text NOT NULL,
      section_id text NOT NULL,
      row_no integer NOT NULL,
      seat_no integer NOT NULL,
      accessible boolean NOT NULL DEFAULT false,
      status text NOT NULL CHECK (status IN ('AVAILABLE','HELD','SOLD','REFUND_PENDING')),
      hold_id text,
      version bigint NOT NULL CHECK (version >= 0),
      PRIMARY KEY (show_id, seat_id),
      CONSTRAINT seat_owned_unless_available CHECK ((status = 'AVAILABLE') = (hold_id IS NULL))
    );
    -- Best-available reads whole rows nearest a point: a few rows per choice.
    CREATE INDEX seats_by_row ON seats (show_id, section_id, row_no, seat_no);

    CREATE TABLE holds (
      hold_id text PRIMARY KEY,
      show_id text NOT NULL REFERENCES shows(show_id),
      user_id text NOT NULL REFERENCES users(user_id),
      total_price_cents integer NOT NULL CHECK (total_price_cents >= 0),
      units integer NOT NULL CHECK (units >= 0),
      status text NOT NULL CHECK (status IN ('ACTIVE','EXPIRED','CONFIRMED','RELEASED')),
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      extensions integer NOT NULL DEFAULT 0 CHECK (extensions >= 0)
    );
    -- The sweep's access path: only live holds, by expiry time.
    CREATE INDEX holds_active_by_expiry ON holds (expires_at, hold_id) WHERE status = 'ACTIVE';

    -- One row per seat of a SEATS line; one per bucket a UNITS line took from (seat_id NULL).
    -- claim is true while the hold is ACTIVE or CONFIRMED, NULL once it lapsed: clearing it is the
    -- give-back, so seats and units return exactly once.
    CREATE TABLE hold_lines (
      hold_id text NOT NULL REFERENCES holds(hold_id),
      line_no integer NOT NULL,
      show_id text NOT NULL,
      section_id text NOT NULL,
      seat_id text,
      bucket integer,
      quantity integer NOT NULL CHECK (quantity >= 1),
      claim boolean CHECK (claim),
      PRIMARY KEY (hold_id, line_no),
      CHECK ((seat_id IS NULL) <> (bucket IS NULL)),
      CHECK (seat_id IS NULL OR quantity = 1)
    );
    -- The schema's guarantee that a seat belongs to at most one live hold, whatever the code does.
    CREATE UNIQUE INDEX hold_lines_one_live_claim ON hold_lines (show_id, seat_id) WHERE claim AND seat_id IS NOT NULL;

    -- Units one buyer holds (ACTIVE holds) or bought (CONFIRMED holds whose order is live) of one
    -- show. A claim increments it conditionally (units + n <= the limit), a lapse decrements it.
    CREATE TABLE user_show_units (
      user_id text NOT NULL,
      show_id text NOT NULL,
      units integer NOT NULL CONSTRAINT user_units_not_negative CHECK (units >= 0),
      PRIMARY KEY (user_id, show_id)
    );

    CREATE TABLE orders (
      order_id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(user_id),
      show_id text NOT NULL REFERENCES shows(show_id),
      hold_id text NOT NULL REFERENCES holds(hold_id),
      idempotency_key text NOT NULL,
      lines jsonb NOT NULL,
      amount_cents integer NOT NULL CHECK (amount_cents >= 0),
      status text NOT NULL CHECK (status IN ('INIT','PENDING_PAY','PAID','TICKETED','CANCELLED','REFUNDED')),
      payment_id text UNIQUE,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      CONSTRAINT orders_one_per_user_key UNIQUE (user_id, idempotency_key)
    );
    CREATE UNIQUE INDEX orders_one_live_per_hold ON orders (hold_id) WHERE status NOT IN ('CANCELLED','REFUNDED');
    CREATE INDEX orders_by_user ON orders (user_id, created_at);
    CREATE INDEX orders_by_status ON orders (status, updated_at, order_id);

    CREATE TABLE payments (
      payment_id text PRIMARY KEY,
      order_id text NOT NULL REFERENCES orders(order_id),
      amount_cents integer NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED','REFUND_PENDING','REFUNDED')),
      updated_at bigint NOT NULL,
      received_cents integer CHECK (received_cents >= 0),
      UNIQUE (payment_id, order_id)
    );
    CREATE INDEX payments_by_status ON payments (status, updated_at, payment_id);

    CREATE TABLE tickets (
      ticket_id text PRIMARY KEY,
      order_id text NOT NULL REFERENCES orders(order_id),
      user_id text NOT NULL REFERENCES users(user_id),
      show_id text NOT NULL,
      section_id text NOT NULL,
      seat_id text,
      seq integer NOT NULL CHECK (seq >= 1),
      code text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('VALID','USED','INVALID')),
      issued_at bigint NOT NULL,
      used_at bigint,
      checkin_nonce text,
      checkin_by text,
      checkin_gate text,
      checkin_device text,
      UNIQUE (order_id, seq)
    );
    -- One admitting ticket per seat, ever.
    CREATE UNIQUE INDEX tickets_one_per_seat ON tickets (show_id, seat_id) WHERE status <> 'INVALID' AND seat_id IS NOT NULL;
    CREATE INDEX tickets_by_user ON tickets (user_id, issued_at);
    CREATE INDEX tickets_by_order ON tickets (order_id);

    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      state text NOT NULL CHECK (state IN ('IN_FLIGHT','DONE')),
      outcome text CHECK (outcome IN ('SUCCEEDED','FAILED')),
      response_body text,
      created_at bigint NOT NULL,
      PRIMARY KEY (scope, key)
    );
    `,
  },
  {
    version: 2,
    name: 'active holds by user',
    sql: `
    -- A buyer's live holds, so every page can resume a hold after a reload (GET /me/holds).
    CREATE INDEX holds_active_by_user ON holds (user_id, expires_at, hold_id) WHERE status = 'ACTIVE';
    `,
  },
  {
    // The door (issue 20): a ticket is found by the short code printed on it within its show; each
    // ticket carries its buyer's username key so the attendee search is a range of one index per
    // show; the show's admitting and used tickets are counters kept by issue and check-in, split
    // into bucket rows (issue picks one at random) so a rush of ticketing does not queue on one row.
    version: 3,
    name: 'door: code lookup, attendee search, door counts',
    sql: `
    CREATE INDEX tickets_by_show_code ON tickets (show_id, code);
    ALTER TABLE tickets ADD COLUMN buyer_key text NOT NULL DEFAULT '';
    UPDATE tickets t SET buyer_key = u.username_key FROM users u WHERE u.user_id = t.user_id;
    CREATE INDEX tickets_attendees ON tickets (show_id, buyer_key COLLATE "C", order_id COLLATE "C", seq);
    CREATE TABLE show_door_counts (
      show_id text NOT NULL,
      bucket smallint NOT NULL CHECK (bucket >= 0),
      admitting bigint NOT NULL,
      checked_in bigint NOT NULL,
      PRIMARY KEY (show_id, bucket)
    );
    INSERT INTO show_door_counts (show_id, bucket, admitting, checked_in)
      SELECT show_id, 0, count(*) FILTER (WHERE status <> 'INVALID'), count(*) FILTER (WHERE status = 'USED') FROM tickets GROUP BY show_id;
    `,
  },
  {
    version: 4,
    name: 'show details and edits; what counted sections sold',
    sql: `
    ALTER TABLE shows ADD COLUMN description text NOT NULL DEFAULT '';
    ALTER TABLE shows ADD COLUMN image_url text;
    -- NULL: priced in the configured currency (shows from before currencies were stored).
    ALTER TABLE shows ADD COLUMN currency text CHECK (currency ~ '^[A-Z]{3}$');
    -- Raised by every edit; an edit applies only to the version it was decided on.
    ALTER TABLE shows ADD COLUMN version integer NOT NULL DEFAULT 0 CHECK (version >= 0);
    -- Units sold from each bucket (CONFIRMED holds' UNITS lines): a sale raises the buckets its
    -- lines took from, so the counter spreads like the stock and the organizer's figures of a
    -- counted section are a sum of its buckets, never a read of the holds.
    ALTER TABLE stock_buckets ADD COLUMN sold integer NOT NULL DEFAULT 0 CHECK (sold >= 0);
    UPDATE stock_buckets b SET sold = t.q FROM (
      SELECT l.show_id, l.section_id, l.bucket, sum(l.quantity)::int AS q FROM hold_lines l JOIN holds h ON h.hold_id = l.hold_id
      WHERE l.claim AND l.bucket IS NOT NULL AND h.status = 'CONFIRMED' GROUP BY l.show_id, l.section_id, l.bucket
    ) t WHERE b.show_id = t.show_id AND b.section_id = t.section_id AND b.bucket = t.bucket;
    -- The users page searches by the start of the username key: a range of this index, in byte order.
    CREATE INDEX users_by_key_bytes ON users ((username_key COLLATE "C"));
    `,
  },
  {
    // The local message table (issue 22): every change anyone outside may care about writes a row
    // in the same transaction as the change. Ids come from a sequence, and a sequence value is
    // taken when the row is inserted, not when its transaction commits: a reader that went by id
    // alone could pass id 11 (committed) while id 10 is still in flight, and never see 10. So each
    // row keeps its transaction's id (xid8, never wraps); readers return only rows whose xid is
    // below the xmin of their snapshot (every transaction older than that has finished, so no row
    // can appear there any more), in (xid, id) order: the position is that pair. Nothing is updated
    // per show: a claim adds one row, no hot counter row.
    version: 5,
    name: 'outbox and relay cursors',
    sql: `
    CREATE TABLE outbox (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
      event_id text NOT NULL DEFAULT gen_random_uuid()::text,
      type text NOT NULL,
      show_id text,
      created_at bigint NOT NULL,
      origin text NOT NULL,
      data jsonb NOT NULL,
      changes jsonb,
      CONSTRAINT outbox_one_per_event_id UNIQUE (event_id)
    );
    -- The readers' order; retention walks it too (oldest first), so no index on time: every
    -- claim inserts a row, and each index is one more insert in the hottest transaction.
    CREATE INDEX outbox_by_position ON outbox (xid, id);
    CREATE TABLE relay_cursors (
      name text PRIMARY KEY,
      position text NOT NULL,
      updated_at bigint NOT NULL
    );
    `,
  },
  {
    // Signed webhooks out (issue 22 item 4); the same tables as SQLite v12. Version 5 belongs to
    // another branch of the same issue (versions apply in order, gaps allowed).
    version: 6,
    name: 'webhooks: endpoints, deliveries, attempts',
    sql: `
    CREATE TABLE webhooks (
      webhook_id text PRIMARY KEY,
      url text NOT NULL,
      events text[] NOT NULL,
      secret text NOT NULL,
      status text NOT NULL CHECK (status IN ('ACTIVE','DISABLED')),
      created_at bigint NOT NULL,
      disabled_reason text
    );
    CREATE TABLE webhook_deliveries (
      delivery_id text PRIMARY KEY,
      webhook_id text NOT NULL REFERENCES webhooks(webhook_id) ON DELETE CASCADE,
      event_id text NOT NULL,
      type text NOT NULL,
      body text NOT NULL,
      attempts integer NOT NULL CHECK (attempts >= 0),
      status text NOT NULL CHECK (status IN ('PENDING','DELIVERED','FAILED','DISABLED')),
      next_attempt_at bigint,
      last_status_code integer,
      last_duration_ms integer,
      last_error text,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    );
    -- A redelivered outbox event never makes a second delivery to the same endpoint.
    CREATE UNIQUE INDEX webhook_deliveries_one_per_event ON webhook_deliveries (webhook_id, event_id);
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, delivery_id) WHERE status = 'PENDING';
    CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, delivery_id);
    CREATE TABLE webhook_attempts (
      delivery_id text NOT NULL REFERENCES webhook_deliveries(delivery_id) ON DELETE CASCADE,
      attempt integer NOT NULL CHECK (attempt >= 1),
      at bigint NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      error text,
      outcome text NOT NULL CHECK (outcome IN ('DELIVERED','RETRY','FAILED','GONE')),
      next_attempt_at bigint,
      PRIMARY KEY (delivery_id, attempt)
    );
    `,
  },
  {
    // Singleton periodic sweeps: a lease per sweep (who runs it, until when), taken by
    // compare-and-set, and the sweep's keyset cursor, so a pass goes on where the last run stopped
    // whichever process ran it.
    version: 7,
    name: 'sweep leases and cursors; sandbox refunds by key',
    sql: `
    CREATE TABLE sweeps (
      name text PRIMARY KEY,
      holder text NOT NULL DEFAULT '',
      lease_until bigint NOT NULL DEFAULT 0,
      cursor_at bigint,
      cursor_id text
    );
    -- The sandbox provider's refunds by idempotency key (a key refunds once; see
    -- sandbox-ledger.ts). Its own table, so this version does not depend on version 8's.
    CREATE TABLE sandbox_refunds (
      idempotency_key text PRIMARY KEY,
      payment_id text NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents > 0)
    );
    `,
  },
  {
    // Many processes over one database (issue 22): values they must agree on (generated secrets
    // and every secret's fingerprint, the demo show's id), first writer wins; and the sandbox
    // payment provider's ledger, so a payment opened through one process is simulated, called
    // back and reconciled through any other.
    version: 8,
    name: 'settings shared by every process; the sandbox ledger',
    sql: `
    CREATE TABLE settings (
      name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 100),
      value text NOT NULL CHECK (length(value) <= 16384),
      created_at bigint NOT NULL
    );
    CREATE TABLE sandbox_payments (
      payment_id text PRIMARY KEY,
      order_id text NOT NULL,
      amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
      status text NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED')),
      delivered boolean NOT NULL DEFAULT false,
      refunded boolean NOT NULL DEFAULT false,
      idempotency_key text UNIQUE,
      decided_at bigint
    );
    CREATE INDEX sandbox_payments_undelivered ON sandbox_payments (decided_at) WHERE NOT delivered AND status <> 'PENDING';
    `,
  },
  {
    // Issue 23, flash sales (the lead renumbers at merge): orders say what they sell (kind) and
    // which campaign (activity_id, NULL on a show's order); a flash sale's own record beside the
    // show that carries its stock (domain/flash-sale.ts).
    version: 12,
    name: 'order kinds and activities; flash sales',
    sql: `
    ALTER TABLE orders ADD COLUMN kind text NOT NULL DEFAULT 'SHOW' CHECK (kind IN ('SHOW','FLASH_SALE','BARGAIN'));
    ALTER TABLE orders ADD COLUMN activity_id text;
    -- NULL on a show; FLASH_SALE on the show that carries a flash sale's stock (never held as a show).
    ALTER TABLE shows ADD COLUMN campaign text CHECK (campaign IS NULL OR campaign IN ('FLASH_SALE'));
    CREATE INDEX orders_by_user_activity ON orders (user_id, activity_id) WHERE activity_id IS NOT NULL;
    CREATE TABLE flash_sales (
      flash_sale_id text PRIMARY KEY,
      max_per_user integer NOT NULL CHECK (max_per_user >= 1),
      offline boolean NOT NULL DEFAULT false,
      items jsonb NOT NULL,
      created_at bigint NOT NULL
    );
    `,
  },
  {
    // Code pools (issue 23, seed 004) and the keyset orders of the CSV exports.
    version: 9,
    name: 'code pools; export orders',
    sql: `
    CREATE TABLE code_pools (
      pool_id text PRIMARY KEY,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      image_url text,
      sale_starts_at bigint NOT NULL,
      sale_ends_at bigint NOT NULL CHECK (sale_ends_at > sale_starts_at),
      created_at bigint NOT NULL,
      imported bigint NOT NULL DEFAULT 0 CHECK (imported >= 0)
    );
    -- One row per code; user_id NULL until a grab hands it out. code_id keeps import order.
    CREATE TABLE pool_codes (
      code_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      pool_id text NOT NULL REFERENCES code_pools(pool_id),
      code text NOT NULL CHECK (char_length(code) BETWEEN 1 AND 128),
      user_id text REFERENCES users(user_id),
      grabbed_at bigint,
      CHECK ((user_id IS NULL) = (grabbed_at IS NULL))
    );
    -- A code is in a pool once: a re-import inserts nothing.
    CREATE UNIQUE INDEX pool_codes_unique_code ON pool_codes (pool_id, code);
    -- One participation per buyer and pool (NULLs, the codes not handed out, are distinct).
    CREATE UNIQUE INDEX pool_codes_one_per_user ON pool_codes (pool_id, user_id);
    -- The next code to hand out, and the count of those left: only unassigned codes are indexed.
    CREATE INDEX pool_codes_free ON pool_codes (pool_id, code_id) WHERE user_id IS NULL;
    CREATE INDEX pool_codes_winners ON pool_codes (pool_id, grabbed_at, code COLLATE "C") WHERE user_id IS NOT NULL;
    CREATE INDEX pool_codes_by_user ON pool_codes (user_id, grabbed_at) WHERE user_id IS NOT NULL;
    -- The exports page through a show's orders and tickets by (time, id).
    CREATE INDEX orders_export ON orders (show_id, created_at, order_id COLLATE "C");
    CREATE INDEX tickets_export ON tickets (show_id, issued_at, ticket_id COLLATE "C");
    `,
  },
  {
    // Issue 22 item 6 (etag): every bucket's change of stock raises its version, so the read model
    // of every process keeps the newest state of each bucket and derives the same show version and
    // ETag from the same stored state. A constant default: no table rewrite.
    version: 13,
    name: 'stock bucket versions',
    sql: `
    ALTER TABLE stock_buckets ADD COLUMN version bigint NOT NULL DEFAULT 0;
    `,
  },
  {
    // Bargains (issue 23 item 4, seed 001 砍价). A bargain's show says BARGAIN in shows.campaign.
    version: 14,
    name: 'bargains',
    sql: `
    ALTER TABLE shows DROP CONSTRAINT IF EXISTS shows_campaign_check;
    ALTER TABLE shows ADD CONSTRAINT shows_campaign_check CHECK (campaign IS NULL OR campaign IN ('FLASH_SALE','BARGAIN'));
    CREATE TABLE bargains (
      bargain_id text PRIMARY KEY,
      goods text NOT NULL,
      original_price_cents integer NOT NULL CHECK (original_price_cents > 0),
      floor_price_cents integer NOT NULL CHECK (floor_price_cents >= 0 AND floor_price_cents < original_price_cents),
      cut_min_cents integer NOT NULL CHECK (cut_min_cents >= 1),
      cut_max_cents integer NOT NULL CHECK (cut_max_cents >= cut_min_cents),
      min_cuts integer NOT NULL CHECK (min_cuts >= 1),
      offline boolean NOT NULL DEFAULT false,
      created_at bigint NOT NULL
    );
    -- One buyer's attempt at a bargain. The floor is copied in so the CHECK can back the cut's clamp.
    CREATE TABLE bargain_orders (
      bargain_order_id text PRIMARY KEY,
      bargain_id text NOT NULL REFERENCES bargains(bargain_id),
      user_id text NOT NULL REFERENCES users(user_id),
      current_price_cents integer NOT NULL,
      floor_price_cents integer NOT NULL,
      cuts integer NOT NULL DEFAULT 0 CHECK (cuts >= 0),
      order_id text UNIQUE,
      created_at bigint NOT NULL,
      CONSTRAINT bargain_orders_above_floor CHECK (current_price_cents >= floor_price_cents)
    );
    -- One bargain order per buyer and bargain (start twice: the same one).
    CREATE UNIQUE INDEX bargain_orders_one_per_user ON bargain_orders (bargain_id, user_id);
    CREATE INDEX bargain_orders_by_order ON bargain_orders (bargain_id, created_at, bargain_order_id COLLATE "C");
    CREATE TABLE bargain_cuts (
      cut_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      bargain_order_id text NOT NULL REFERENCES bargain_orders(bargain_order_id),
      helper_id text NOT NULL REFERENCES users(user_id),
      amount_cents integer NOT NULL CHECK (amount_cents >= 0),
      cut_at bigint NOT NULL
    );
    -- One cut per helper and bargain order (seed 001 砍价 3: each friend cuts once).
    CREATE UNIQUE INDEX bargain_cuts_one_per_helper ON bargain_cuts (bargain_order_id, helper_id);
    -- Code pools in the activity catalog: an organizer's offline switch.
    ALTER TABLE code_pools ADD COLUMN offline boolean NOT NULL DEFAULT false;
    -- Organizers' changes are compare-and-set on it (no lost update).
    ALTER TABLE code_pools ADD COLUMN version integer NOT NULL DEFAULT 0;
    `,
  },
  {
    // Issue 25 items 6 and 8: discount codes (uses counted in the order's transaction) and each
    // order's contact and discount.
    version: 17,
    name: 'discount codes; order contact',
    sql: `
    ALTER TABLE orders ADD COLUMN contact_name text;
    ALTER TABLE orders ADD COLUMN contact_phone text;
    ALTER TABLE orders ADD COLUMN contact_email text;
    ALTER TABLE orders ADD COLUMN discount_code text;
    ALTER TABLE orders ADD COLUMN discount_cents integer NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);
    -- The provider's hosted payment page (Stripe Checkout), so an unpaid order can be paid again from its page.
    ALTER TABLE payments ADD COLUMN checkout_url text;
    CREATE TABLE discount_codes (
      code text PRIMARY KEY,
      percent_off integer CHECK (percent_off IS NULL OR percent_off BETWEEN 1 AND 100),
      amount_off_cents integer CHECK (amount_off_cents IS NULL OR amount_off_cents >= 1),
      show_ids text[],
      valid_from bigint NOT NULL,
      valid_until bigint NOT NULL CHECK (valid_until > valid_from),
      max_uses integer NOT NULL CHECK (max_uses >= 1),
      per_user_max integer NOT NULL CHECK (per_user_max >= 1),
      uses integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
      status text NOT NULL CHECK (status IN ('ACTIVE','DISABLED')),
      created_at bigint NOT NULL,
      CHECK ((percent_off IS NULL) <> (amount_off_cents IS NULL))
    );
    CREATE INDEX discount_codes_by_created ON discount_codes (created_at DESC, code COLLATE "C");
    -- Each buyer's uses of a code held now: the per-user cap is a conditional upsert on this row.
    CREATE TABLE discount_user_uses (
      code text NOT NULL REFERENCES discount_codes(code),
      user_id text NOT NULL,
      uses integer NOT NULL CHECK (uses >= 0),
      PRIMARY KEY (code, user_id)
    );
    -- One use per order, given back at most once (returned_at).
    CREATE TABLE discount_redemptions (
      order_id text PRIMARY KEY,
      code text NOT NULL REFERENCES discount_codes(code),
      user_id text NOT NULL,
      created_at bigint NOT NULL,
      returned_at bigint
    );
    `,
  },
  {
    // Buyer notifications (issue 25 item 7), the buyer's language and address, and the audit
    // trail of organizer and admin changes (issue 26 item 5).
    version: 20,
    name: 'notifications and audit trail',
    sql: `
    CREATE TABLE notifications (
      notification_id text PRIMARY KEY,
      user_id text NOT NULL,
      kind text NOT NULL,
      event_id text NOT NULL,
      show_id text,
      order_id text,
      data jsonb NOT NULL,
      created_at bigint NOT NULL,
      read_at bigint,
      email_status text NOT NULL CHECK (email_status IN ('NONE','PENDING','SENDING','SENT','FAILED','NO_ADDRESS')),
      email_attempts integer NOT NULL DEFAULT 0 CHECK (email_attempts >= 0),
      email_next_attempt_at bigint,
      email_sent_at bigint,
      email_last_error text
    );
    -- One notification per (event, buyer, kind): the relay delivers at least once.
    CREATE UNIQUE INDEX notifications_once ON notifications (event_id, user_id, kind);
    CREATE INDEX notifications_by_user ON notifications (user_id, created_at, notification_id COLLATE "C");
    CREATE INDEX notifications_email_due ON notifications (email_next_attempt_at) WHERE email_status IN ('PENDING','SENDING');
    CREATE TABLE user_preferences (
      user_id text PRIMARY KEY REFERENCES users(user_id),
      language text CHECK (language IN ('en','zh-CN')),
      email text,
      updated_at bigint NOT NULL
    );
    CREATE INDEX orders_by_show_user ON orders (show_id, user_id COLLATE "C");
    CREATE TABLE audit_log (
      entry_id text PRIMARY KEY,
      at bigint NOT NULL,
      actor_id text NOT NULL,
      actor_role text NOT NULL,
      action text NOT NULL,
      entity_type text NOT NULL,
      entity_id text NOT NULL,
      show_id text,
      before jsonb,
      after jsonb
    );
    CREATE INDEX audit_log_by_time ON audit_log (at, entry_id COLLATE "C");
    CREATE INDEX audit_log_by_entity ON audit_log (entity_type, entity_id, at);
    CREATE INDEX audit_log_by_actor ON audit_log (actor_id, at);
    `,
  },
  {
    // Waitlist (issue 25 item 5, 候补): entries in order of joining; one live entry per buyer and show.
    version: 19,
    name: 'waitlist',
    sql: `
    CREATE TABLE waitlist_entries (
      entry_id text PRIMARY KEY,
      show_id text NOT NULL REFERENCES shows(show_id),
      user_id text NOT NULL REFERENCES users(user_id),
      section_id text,
      quantity integer NOT NULL CHECK (quantity >= 1),
      status text NOT NULL CHECK (status IN ('WAITING','OFFERED','CLAIMED','LAPSED','LEFT')),
      joined_at bigint NOT NULL,
      hold_id text,
      claim_until bigint,
      updated_at bigint NOT NULL,
      CHECK ((status = 'WAITING') = (hold_id IS NULL) OR status = 'LEFT')
    );
    -- The guard of a join: one live entry per buyer and show.
    CREATE UNIQUE INDEX waitlist_one_live_per_user ON waitlist_entries (show_id, user_id) WHERE status IN ('WAITING','OFFERED');
    -- The line: WAITING entries of a show in order of joining.
    CREATE INDEX waitlist_line ON waitlist_entries (show_id, joined_at, entry_id COLLATE "C") WHERE status = 'WAITING';
    CREATE UNIQUE INDEX waitlist_by_hold ON waitlist_entries (hold_id) WHERE hold_id IS NOT NULL;
    CREATE INDEX waitlist_by_user ON waitlist_entries (user_id, joined_at);
    `,
  },
  {
    // Exchanges (issue 25 item 4, 改签): one row per completed swap; one exchange per new hold.
    version: 23,
    name: 'exchanges',
    sql: `
    CREATE TABLE exchanges (
      exchange_id text PRIMARY KEY,
      user_id text NOT NULL,
      old_order_id text NOT NULL REFERENCES orders(order_id),
      old_show_id text NOT NULL,
      old_ticket_ids text NOT NULL,
      new_order_id text NOT NULL REFERENCES orders(order_id),
      new_show_id text NOT NULL,
      new_hold_id text NOT NULL UNIQUE,
      new_ticket_ids text NOT NULL,
      difference_cents integer NOT NULL,
      created_at bigint NOT NULL
    );
    CREATE INDEX exchanges_by_old_order ON exchanges (old_order_id, created_at);
    `,
  },
  {
    // Issue 24 item 4: the blocklist. Entries are never deleted (a lift is a state), so the count
    // and the lifted count are a change marker every process can poll cheaply.
    version: 16,
    name: 'blocklist',
    sql: `
    CREATE TABLE blocklist (
      block_id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('USER','IP')),
      user_id text REFERENCES users(user_id),
      username text,
      cidr text,
      reason text NOT NULL,
      created_by text NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint,
      status text NOT NULL CHECK (status IN ('ACTIVE','LIFTED')),
      lifted_at bigint,
      CHECK ((kind = 'USER' AND user_id IS NOT NULL AND cidr IS NULL) OR (kind = 'IP' AND cidr IS NOT NULL AND user_id IS NULL)),
      CHECK ((status = 'LIFTED') = (lifted_at IS NOT NULL))
    );
    CREATE INDEX blocklist_active ON blocklist (status, created_at, block_id);
    `,
  },
  {
    // Waiting rooms (issue 24 item 1): an activity's room, and the places in its line.
    version: 15,
    name: 'waiting rooms',
    sql: `
    CREATE TABLE waiting_rooms (
      activity_id text PRIMARY KEY,
      enabled boolean NOT NULL,
      admit_per_minute integer NOT NULL CHECK (admit_per_minute BETWEEN 0 AND 60000),
      admission_seconds integer NOT NULL CHECK (admission_seconds BETWEEN 30 AND 3600),
      version integer NOT NULL CHECK (version >= 1),
      updated_at bigint NOT NULL,
      -- The admitter's clock (compare-and-set by each pass, whichever process runs it) and carried fraction.
      admit_clock bigint NOT NULL DEFAULT 0,
      admit_carry double precision NOT NULL DEFAULT 0
    );
    CREATE TABLE queue_entries (
      queue_id text PRIMARY KEY,
      activity_id text NOT NULL,
      user_id text NOT NULL REFERENCES users(user_id),
      state text NOT NULL CHECK (state IN ('WAITING','ADMITTED','EXPIRED','LEFT','BLOCKED','SOLD_OUT')),
      band smallint NOT NULL CHECK (band IN (0, 1)),
      draw bigint NOT NULL CHECK (draw >= 0),
      joined_at bigint NOT NULL,
      admitted_at bigint,
      admitted_until bigint,
      updated_at bigint NOT NULL
    );
    -- One place per user and activity, whatever its state (joining twice answers the same place).
    CREATE UNIQUE INDEX queue_entries_one_per_user ON queue_entries (activity_id, user_id);
    -- Admission order; a position is a counted range of it.
    CREATE INDEX queue_entries_line ON queue_entries (activity_id, state, band, draw, joined_at, queue_id COLLATE "C");
    CREATE INDEX queue_entries_admitted ON queue_entries (state, admitted_until);
    CREATE INDEX queue_entries_admitted_at ON queue_entries (activity_id, admitted_at);
    CREATE INDEX queue_entries_by_user ON queue_entries (user_id, state);
    `,
  },
  {
    // Issue 25 (refunds, show policy). Version 18 is this branch's (versions apply in order, gaps allowed).
    version: 18,
    name: 'refunds: REFUND_PENDING orders, a refunds table, show refund and exchange policy',
    sql: `
    ALTER TABLE orders DROP CONSTRAINT orders_status_check;
    ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('INIT','PENDING_PAY','PAID','TICKETED','CANCELLED','REFUNDED','REFUND_PENDING'));
    ALTER TABLE orders ADD COLUMN refunded_cents integer NOT NULL DEFAULT 0;
    ALTER TABLE orders ADD CONSTRAINT orders_refunded_within_amount CHECK (refunded_cents >= 0 AND refunded_cents <= amount_cents);
    ALTER TABLE shows ADD COLUMN refund_until_hours_before integer CHECK (refund_until_hours_before IS NULL OR refund_until_hours_before >= 0);
    ALTER TABLE shows ADD COLUMN exchange_until_hours_before integer CHECK (exchange_until_hours_before IS NULL OR exchange_until_hours_before >= 0);
    ALTER TABLE shows ADD COLUMN cancelled_at bigint;
    ALTER TABLE shows ADD COLUMN cancel_reason text;
    CREATE TABLE refunds (
      refund_id text PRIMARY KEY,
      order_id text NOT NULL REFERENCES orders(order_id),
      user_id text NOT NULL,
      show_id text NOT NULL,
      payment_id text,
      amount_cents integer NOT NULL CHECK (amount_cents >= 0),
      ticket_ids text NOT NULL,
      whole boolean NOT NULL,
      status text NOT NULL CHECK (status IN ('PENDING','REFUNDED','REFUSED')),
      reason text,
      requested_by text NOT NULL CHECK (requested_by IN ('BUYER','ORGANIZER')),
      idempotency_key text,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    );
    -- A retried request (same key) is the same refund, never a second one.
    CREATE UNIQUE INDEX refunds_one_per_key ON refunds (order_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX refunds_by_order ON refunds (order_id, created_at, refund_id COLLATE "C");
    CREATE INDEX refunds_pending ON refunds (updated_at, refund_id COLLATE "C") WHERE status = 'PENDING';
    `,
  },  {
    // Issue 32 (money is a ledger). Versions apply in order, gaps allowed.
    version: 24,
    name: 'money: each ticket\'s paid price; exchanges found by the order they created; payments partly or wholly refunded',
    sql: `
    ALTER TABLE tickets ADD COLUMN paid_cents integer CHECK (paid_cents IS NULL OR paid_cents >= 0);
    CREATE INDEX exchanges_by_new_order ON exchanges (new_order_id);
    ALTER TABLE payments DROP CONSTRAINT payments_status_check;
    ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('PENDING','SUCCEEDED','FAILED','REFUND_PENDING','REFUNDED','PARTIALLY_REFUNDED'));
    CREATE INDEX refunds_by_payment ON refunds (payment_id) WHERE status = 'REFUNDED';
    `,
  },  {
    // Issue 32 (dearer exchanges): PENDING while the difference awaits payment, then COMPLETED or ABANDONED.
    version: 25,
    name: 'exchanges: a status (a dearer swap waits for its difference payment); refunds: the part paid back through a second payment',
    sql: `
    ALTER TABLE exchanges ADD COLUMN status text NOT NULL DEFAULT 'COMPLETED' CHECK (status IN ('PENDING','COMPLETED','ABANDONED'));
    ALTER TABLE refunds ADD COLUMN source_payment_id text;
    ALTER TABLE refunds ADD COLUMN source_cents integer NOT NULL DEFAULT 0 CHECK (source_cents >= 0);
    CREATE INDEX refunds_by_source_payment ON refunds (source_payment_id) WHERE status = 'REFUNDED' AND source_payment_id IS NOT NULL;
    `,
  },
];
