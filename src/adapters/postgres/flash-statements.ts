import type pg from 'pg';
import type { TakeFlashSaleInput } from '../../ports/engine/index.js';

export interface FlashStatementResult {
  /** The sale exists, is not offline, is open at `now`, and the key has no order yet. */
  readonly open: boolean;
  /** An unlocked bucket of the item had enough stock. */
  readonly picked: boolean;
  /** The buyer's units after the take; null when the cap refused it (or nothing was picked). */
  readonly units: number | null;
  /** The order inserted; null when anything above refused. */
  readonly order_id: string | null;
  readonly total: number | null;
  /** The bucket taken from, as stored after the take (see BucketState); null when nothing was taken. */
  readonly bucket: number | null;
  readonly bucket_available: number | null;
  readonly bucket_version: number | null;
}

/**
 * The common case of a flash-sale order as ONE statement (autocommit), like claimUnitsStatement:
 * the sale's state and the key checked, a random unlocked bucket of the item with enough stock
 * taken (SKIP LOCKED, so buyers of one hot item spread over the buckets), the buyer's counter
 * raised within maxPerUser (the lock order of stock.ts: bucket, then counter), the hold, its line
 * and the INIT order inserted. Each data-modifying step is conditional on the one before, so a
 * refusal anywhere writes nothing. When it takes nothing for a reason other than the cap, the
 * adapter's transaction decides (exact refusals, low stock spread over buckets).
 */
export async function flashOrderStatement(c: pg.ClientBase, input: TakeFlashSaleInput): Promise<FlashStatementResult> {
  const lines = JSON.stringify([{ kind: 'UNITS', sectionId: input.itemId, quantity: input.quantity }]);
  const { rows } = await c.query<FlashStatementResult>({
    name: 'flash-order',
    text: `WITH sale AS MATERIALIZED (
       SELECT f.max_per_user FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id
       WHERE f.flash_sale_id = $1 AND NOT f.offline AND s.sale_starts_at <= $8::bigint AND $8::bigint < s.sale_ends_at
         AND NOT EXISTS (SELECT 1 FROM orders WHERE user_id = $5 AND idempotency_key = $10)),
     pick AS MATERIALIZED (
       SELECT bucket FROM stock_buckets WHERE show_id = $1 AND section_id = $2 AND available >= $3::int AND EXISTS (SELECT 1 FROM sale)
       ORDER BY (bucket + $4::int) % 1024 LIMIT 1 FOR UPDATE SKIP LOCKED),
     u AS (
       INSERT INTO user_show_units AS u (user_id, show_id, units)
       SELECT $5::text, $1::text, $3::int FROM sale WHERE $3::int <= sale.max_per_user AND EXISTS (SELECT 1 FROM pick)
       ON CONFLICT (user_id, show_id) DO UPDATE SET units = u.units + EXCLUDED.units
         WHERE u.units + EXCLUDED.units <= (SELECT max_per_user FROM sale)
       RETURNING units),
     b AS (
       UPDATE stock_buckets s SET available = s.available - $3::int, version = s.version + 1 FROM pick
       WHERE s.show_id = $1 AND s.section_id = $2 AND s.bucket = pick.bucket AND EXISTS (SELECT 1 FROM u)
       RETURNING s.bucket, s.available, s.version),
     price AS (SELECT price_cents * $3::int AS total FROM sections WHERE show_id = $1 AND section_id = $2),
     h AS (
       INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
       SELECT $7, $1, $5, (SELECT total FROM price), $3::int, 'ACTIVE', $8::bigint, $9::bigint, 0 WHERE EXISTS (SELECT 1 FROM b)
       RETURNING hold_id),
     l AS (
       INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, bucket, quantity, claim)
       SELECT $7, 0, $1, $2, NULL, b.bucket, $3::int, true FROM b WHERE EXISTS (SELECT 1 FROM h)),
     o AS (
       INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at, kind, activity_id)
       SELECT $6, $5, $1, $7, $10, $11::jsonb, (SELECT total FROM price), 'INIT', NULL, $8::bigint, $8::bigint, 'FLASH_SALE', $1 WHERE EXISTS (SELECT 1 FROM h)
       RETURNING order_id)
     SELECT EXISTS (SELECT 1 FROM sale) AS open, EXISTS (SELECT 1 FROM pick) AS picked,
       (SELECT units FROM u) AS units, (SELECT order_id FROM o) AS order_id, (SELECT total FROM price) AS total,
       (SELECT bucket FROM b) AS bucket, (SELECT available FROM b) AS bucket_available, (SELECT version FROM b) AS bucket_version`,
    values: [input.flashSaleId, input.itemId, input.quantity, Math.floor(Math.random() * 1024), input.userId, input.orderId, input.holdId, input.now, input.expiresAt, input.idempotencyKey, lines],
  });
  return rows[0] as FlashStatementResult;
}
