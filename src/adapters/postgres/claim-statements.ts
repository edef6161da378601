import type pg from 'pg';
import type { ClaimBase } from '../../ports/engine/index.js';
import { holdCreatedData } from '../shared/outbox-drafts.js';

/**
 * The claims' hot paths as ONE statement each, run in autocommit: a single statement is atomic
 * in PostgreSQL, so the check-and-take needs no BEGIN/COMMIT round trips. Each step is a CTE
 * conditional on the previous one having happened (EXISTS on its RETURNING), so the statement
 * writes everything or nothing:
 *   lock the inventory (SKIP LOCKED: what another claim is taking right now is not waited for)
 *   -> conditional increment of the buyer's counter (units + n <= cap)
 *   -> the take (seats AVAILABLE -> HELD, or the bucket's available - n)
 *   -> the hold and its lines
 *   -> its outbox row (hold.created, with the seats' new versions), in the same statement.
 * Row locks are held only while the statement runs. The storage guards (CHECKs, the partial
 * unique index on live claims) still apply to every row written.
 */

export interface SeatStatementResult {
  /** Every seat asked for exists, is sold by seat, was free, and is now locked by us. */
  readonly complete: boolean;
  /** The buyer's units after the increment; null when the cap refused it (or the seats were incomplete). */
  readonly units: number | null;
  readonly total: number;
  /** The seats taken, as they are after the change, with their sections. */
  readonly taken: readonly { readonly seatId: string; readonly sectionId: string; readonly version: number; readonly row: number; readonly number: number }[];
  /** The seats asked for that were free, sold by seat, and not being taken by anyone else. */
  readonly locked: readonly string[];
}

/**
 * Claims exactly `seatIds` (in that order) for a new hold, or writes nothing. A seat that does
 * not exist, belongs to a section sold by quantity, is not AVAILABLE, or is locked by another
 * claim at this instant leaves the statement incomplete: nothing is taken, and `locked` says
 * which seats were to be had.
 */
export async function claimSeatsStatement(c: pg.ClientBase, input: ClaimBase, seatIds: readonly string[], origin: string): Promise<SeatStatementResult> {
  const { rows } = await c.query<{ complete: boolean; units: number | null; total: number; taken: SeatStatementResult['taken'] | null; locked: string[] | null }>({
    // Named: prepared once per connection, so the hot path skips parsing and planning.
    name: 'claim-seats',
    // `locked` finds the seats by primary key (MATERIALIZED: never a scan of whole sections, which
    // stale statistics after a bulk insert would otherwise choose) and locks them in seat-id order.
    text: `WITH locked AS MATERIALIZED (
       SELECT seat_id, section_id FROM seats WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'AVAILABLE'
         AND EXISTS (SELECT 1 FROM sections c WHERE c.show_id = $1 AND c.section_id = seats.section_id AND c.sell_by = 'SEAT')
       ORDER BY seat_id COLLATE "C" FOR UPDATE SKIP LOCKED),
     complete AS (SELECT count(*) = cardinality($2::text[]) AS ok FROM locked),
     u AS (
       INSERT INTO user_show_units AS u (user_id, show_id, units)
       SELECT $3::text, $1::text, $4::int WHERE $4::int <= $5::int AND (SELECT ok FROM complete)
       ON CONFLICT (user_id, show_id) DO UPDATE SET units = u.units + EXCLUDED.units WHERE u.units + EXCLUDED.units <= $5::int
       RETURNING units),
     taken AS (
       UPDATE seats s SET status = 'HELD', hold_id = $6, version = s.version + 1
       FROM locked WHERE s.show_id = $1 AND s.seat_id = locked.seat_id AND EXISTS (SELECT 1 FROM u)
       RETURNING s.seat_id, s.section_id, s.version, s.row_no, s.seat_no),
     price AS (
       SELECT coalesce(sum(c.price_cents), 0)::int AS total
       FROM locked JOIN sections c ON c.show_id = $1 AND c.section_id = locked.section_id),
     h AS (
       INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
       SELECT $6, $1, $3, (SELECT total FROM price), $4::int, 'ACTIVE', $7::bigint, $8::bigint, 0 WHERE EXISTS (SELECT 1 FROM u)
       RETURNING hold_id),
     l AS (
       INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, bucket, quantity, claim)
       SELECT $6, t.n - 1, $1, locked.section_id, t.seat_id, NULL, 1, true
       FROM unnest($2::text[]) WITH ORDINALITY AS t(seat_id, n) JOIN locked ON locked.seat_id = t.seat_id WHERE EXISTS (SELECT 1 FROM h)),
     ob AS (
       INSERT INTO outbox (type, show_id, created_at, origin, data, changes)
       SELECT 'hold.created', $1, $7::bigint, $9::text, $10::jsonb || jsonb_build_object('totalPriceCents', (SELECT total FROM price)),
         jsonb_build_object('showId', $1::text, 'stock', '[]'::jsonb, 'seats', (
           SELECT jsonb_agg(jsonb_build_object('seatId', t.seat_id, 'status', 'HELD', 'holdId', $6::text, 'version', taken.version) ORDER BY t.n)
           FROM unnest($2::text[]) WITH ORDINALITY AS t(seat_id, n) JOIN taken ON taken.seat_id = t.seat_id))
       WHERE EXISTS (SELECT 1 FROM h))
     SELECT (SELECT ok FROM complete) AS complete, (SELECT units FROM u) AS units, (SELECT total FROM price) AS total,
       (SELECT json_agg(json_build_object('seatId', seat_id, 'sectionId', section_id, 'version', version, 'row', row_no, 'number', seat_no)) FROM taken) AS taken,
       (SELECT array_agg(seat_id) FROM locked) AS locked`,
    values: [input.showId, seatIds, input.userId, seatIds.length, input.userUnitsMax, input.holdId, input.now, input.expiresAt, origin,
      JSON.stringify(holdCreatedData(input, seatIds, seatIds.length))],
  });
  const r = rows[0] as { complete: boolean; units: number | null; total: number; taken: SeatStatementResult['taken'] | null; locked: string[] | null };
  return { complete: r.complete, units: r.units, total: r.total, taken: r.taken ?? [], locked: r.locked ?? [] };
}

export interface UnitsStatementResult {
  /** An unlocked bucket with enough stock was found (and locked). */
  readonly picked: boolean;
  /**
   * Some bucket had enough in the statement's snapshot, locked or not: when nothing was picked,
   * true means every such bucket was busy (try again), false that the stock is low or spread thin.
   */
  readonly enough: boolean;
  readonly units: number | null;
  readonly bucket: number | null;
  /** The bucket taken from, as stored after the take (see BucketState); null when nothing was taken. */
  readonly bucket_available: number | null;
  readonly bucket_version: number | null;
  readonly total: number | null;
}

export async function claimUnitsStatement(c: pg.ClientBase, input: ClaimBase & { readonly sectionId: string; readonly quantity: number }, origin: string): Promise<UnitsStatementResult> {
  const { rows } = await c.query<UnitsStatementResult>({
    name: 'claim-units',
    text: `WITH pick AS MATERIALIZED (
       SELECT bucket FROM stock_buckets WHERE show_id = $1 AND section_id = $2 AND available >= $3::int
       ORDER BY (bucket + $4::int) % 1024 LIMIT 1 FOR UPDATE SKIP LOCKED),
     u AS (
       INSERT INTO user_show_units AS u (user_id, show_id, units)
       SELECT $5::text, $1::text, $3::int WHERE $3::int <= $6::int AND EXISTS (SELECT 1 FROM pick)
       ON CONFLICT (user_id, show_id) DO UPDATE SET units = u.units + EXCLUDED.units WHERE u.units + EXCLUDED.units <= $6::int
       RETURNING units),
     b AS (
       UPDATE stock_buckets s SET available = s.available - $3::int, version = s.version + 1 FROM pick
       WHERE s.show_id = $1 AND s.section_id = $2 AND s.bucket = pick.bucket AND EXISTS (SELECT 1 FROM u)
       RETURNING s.bucket, s.available, s.version),
     price AS (SELECT price_cents * $3::int AS total FROM sections WHERE show_id = $1 AND section_id = $2 AND sell_by = 'QUANTITY'),
     h AS (
       INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
       SELECT $7, $1, $5, (SELECT total FROM price), $3::int, 'ACTIVE', $8::bigint, $9::bigint, 0 WHERE EXISTS (SELECT 1 FROM b)
       RETURNING hold_id),
     l AS (
       INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, bucket, quantity, claim)
       SELECT $7, 0, $1, $2, NULL, b.bucket, $3::int, true FROM b WHERE EXISTS (SELECT 1 FROM h)),
     ob AS (
       INSERT INTO outbox (type, show_id, created_at, origin, data, changes)
       SELECT 'hold.created', $1, $8::bigint, $10::text, $11::jsonb || jsonb_build_object('totalPriceCents', (SELECT total FROM price)),
         -- The bucket as stored after the take, for the other processes' read models (StockChange.buckets).
         jsonb_set($12::jsonb, '{stock,0,buckets}', (SELECT jsonb_build_array(jsonb_build_object('bucket', bucket, 'available', available, 'version', version)) FROM b))
       WHERE EXISTS (SELECT 1 FROM h))
     SELECT EXISTS (SELECT 1 FROM pick) AS picked,
       EXISTS (SELECT 1 FROM stock_buckets WHERE show_id = $1 AND section_id = $2 AND available >= $3::int) AS enough,
       (SELECT units FROM u) AS units, (SELECT bucket FROM b) AS bucket,
       (SELECT available FROM b) AS bucket_available, (SELECT version FROM b) AS bucket_version, (SELECT total FROM price) AS total`,
    values: [input.showId, input.sectionId, input.quantity, Math.floor(Math.random() * 1024), input.userId, input.userUnitsMax, input.holdId, input.now, input.expiresAt,
      origin, JSON.stringify(holdCreatedData(input, [], input.quantity)),
      JSON.stringify({ showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity }] })],
  });
  return rows[0] as UnitsStatementResult;
}
