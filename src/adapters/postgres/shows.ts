import type pg from 'pg';
import { SeatLayout, isCounted, limits, sectionCapacity, type SellBy } from '../../domain/index.js';
import type { SectionAvailability, ShowStore } from '../../ports/engine/index.js';
import { showChanged } from '../shared/outbox-drafts.js';
import { appendOutbox } from './outbox.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';
import { toShow, type SeatRow, type ShowRow } from './rows.js';

/**
 * Bucket rows per counted section. A claim locks one bucket (picked at random, SKIP LOCKED), so up
 * to this many claims on one section commit side by side instead of queueing on one hot row. More
 * than one process's pool (TICKETRUSH_DATABASE_POOL_MAX, 10 by default), so that the claims of a
 * process rarely find every bucket busy, and room for a second process; a low-stock claim locks
 * them all, so not many more.
 */
export const stockBucketsPerSection = 16;

/** `capacity` split as evenly as possible into at most stockBucketsPerSection buckets (none empty unless capacity is 0). */
export function bucketCapacities(capacity: number): number[] {
  const n = Math.max(1, Math.min(stockBucketsPerSection, capacity));
  return Array.from({ length: n }, (_, i) => Math.floor(capacity / n) + (i < capacity % n ? 1 : 0));
}

export function pgShows(db: PgDb, origin: string): ShowStore {
  return {
    // One transaction: the show, its sections, their buckets, and the seats in chunks of at most
    // limits.seatInsertChunkMax rows per INSERT (arrays unnested server-side). The ids are new, so
    // nothing runs against it concurrently; READ COMMITTED is enough.
    async createShow({ show, audit }) {
      const layout = new SeatLayout(show.seatMap);
      const result = await db.tx('createShow', async (c) => {
        await c.query(
          `INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, max_seats_per_user, created_at,
             description, image_url, currency, version, campaign, refund_until_hours_before, exchange_until_hours_before)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
          [show.showId, show.title, show.venue, show.city, show.startsAt, show.saleStartsAt, show.saleEndsAt, JSON.stringify(show.seatMap), show.capacity, show.maxSeatsPerUser, show.createdAt,
            show.description, show.imageUrl, show.currency, show.version, show.campaign ?? null, show.refundUntilHoursBefore ?? null, show.exchangeUntilHoursBefore ?? null]);
        for (const [position, section] of show.seatMap.sections.entries()) {
          const seated = section.kind === 'SEATED';
          const sellBy: SellBy = seated ? section.sellBy : 'QUANTITY';
          const capacity = sectionCapacity(section);
          await c.query(
            `INSERT INTO sections (show_id, section_id, position, name, kind, sell_by, price_cents, rows_count, seats_per_row, capacity)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [show.showId, section.id, position, section.name, section.kind, sellBy, section.priceCents, seated ? section.rows : null, seated ? section.seatsPerRow : null, capacity]);
          if (isCounted(section)) {
            const capacities = bucketCapacities(capacity);
            await c.query(
              `INSERT INTO stock_buckets (show_id, section_id, bucket, capacity, available)
               SELECT $1, $2, b - 1, cap, cap FROM unnest($3::int[]) WITH ORDINALITY AS t(cap, b)`,
              [show.showId, section.id, capacities]);
          }
        }
        // Each chunk is laid out just before its statement, so the process never holds every seat at once.
        for (let start = 0; start < layout.size; start += limits.seatInsertChunkMax) {
          const chunk = Array.from({ length: Math.min(limits.seatInsertChunkMax, layout.size - start) }, (_, k) => layout.seatAt(start + k));
          await c.query(
            `INSERT INTO seats (show_id, seat_id, section_id, row_no, seat_no, accessible, status, hold_id, version)
             SELECT $1, id, section, r, n, acc, 'AVAILABLE', NULL, 0
             FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::boolean[]) AS t(id, section, r, n, acc)`,
            [show.showId, chunk.map((s) => s.seatId), chunk.map((s) => s.section), chunk.map((s) => s.row), chunk.map((s) => s.number), chunk.map((s) => s.accessible)]);
        }
        await appendOutbox(c, origin, show.createdAt, [showChanged(show)]);
        await appendAuditEntry(c, audit);
      });
      if (!result.ok) unexpected('createShow', result);
      // A big show changes the tables' statistics at once (100,000 rows in one transaction);
      // autovacuum would see it only later, and until then plans rest on the old figures.
      // The show is committed either way: statistics that cannot be refreshed now (a busy
      // database) are autovacuum's to refresh later, not a failure to report to the organizer.
      await db.query('ANALYZE seats, sections, stock_buckets').catch(() => undefined);
    },
    async getShow(showId) {
      const { rows } = await db.query<ShowRow>('SELECT * FROM shows WHERE show_id = $1', [showId]);
      return rows[0] === undefined ? null : toShow(rows[0]);
    },
    async listShows(page, now) {
      const { rows } = await db.query<ShowRow>(
        // A flash sale's or bargain's show carries its stock; the catalog lists the campaign instead.
        `SELECT * FROM shows WHERE campaign IS NULL AND NOT EXISTS (SELECT 1 FROM flash_sales f WHERE f.flash_sale_id = shows.show_id) ORDER BY
           CASE WHEN $1 < sale_starts_at THEN 1 WHEN $1 < sale_ends_at THEN 0 ELSE 2 END,
           CASE WHEN $1 < sale_starts_at THEN sale_starts_at WHEN $1 < sale_ends_at THEN sale_ends_at ELSE -sale_ends_at END,
           show_id COLLATE "C"
         LIMIT $2 OFFSET $3`, [now, page.limit, page.offset]);
      return rows.map(toShow);
    },
    // The show and its sections' counts; seat states follow in pages (seatStates), each its own
    // snapshot: the read model is fed every change meanwhile and takes a seat's newest version.
    async loadSeatMap(showId) {
      return db.read(async (c) => {
        const { rows: shows } = await c.query<ShowRow>('SELECT * FROM shows WHERE show_id = $1', [showId]);
        if (shows[0] === undefined) return null;
        return { show: toShow(shows[0]), sections: await sectionAvailability(c, showId) };
      });
    },
    // Keyset page over the primary key (show_id, seat_id): one index range read of `limit` rows.
    async seatStates(showId, afterSeatId, limit) {
      const { rows } = await db.query<Pick<SeatRow, 'seat_id' | 'status' | 'version'>>(
        'SELECT seat_id, status, version FROM seats WHERE show_id = $1 AND seat_id > $2 ORDER BY seat_id LIMIT $3',
        [showId, afterSeatId ?? '', Math.min(limit, limits.seatStatePageMax)]);
      return rows.map((r) => ({ seatId: r.seat_id, status: r.status, version: Number(r.version) }));
    },
    // One compare-and-set UPDATE on the version: PostgreSQL re-checks it on the newest committed
    // row after any wait, so of two edits decided on one version the second finds 0 rows (stale).
    async updateShow(input) {
      const d = input.details;
      const edited = await db.tx('updateShow', async (c) => {
        const { rows } = await c.query<ShowRow>(
          `UPDATE shows SET title = $3, description = $4, image_url = $5, venue = $6, city = $7, starts_at = $8, sale_starts_at = $9, sale_ends_at = $10,
             refund_until_hours_before = $11, exchange_until_hours_before = $12, version = version + 1
           WHERE show_id = $1 AND version = $2 RETURNING *`,
          [input.showId, input.expectedVersion, d.title, d.description, d.imageUrl, d.venue, d.city, d.startsAt, d.saleStartsAt, d.saleEndsAt,
            d.refundUntilHoursBefore ?? null, d.exchangeUntilHoursBefore ?? null]);
        const show = rows[0] === undefined ? null : toShow(rows[0]);
        if (show !== null) {
          await appendOutbox(c, origin, input.now ?? Date.now(), [showChanged(show)]);
          await appendAuditEntry(c, input.audit);
        }
        return show;
      });
      if (!edited.ok) return unexpected('updateShow', edited);
      if (edited.value !== null) return { ok: true, show: edited.value };
      const exists = await db.query('SELECT 1 FROM shows WHERE show_id = $1', [input.showId]);
      return exists.rowCount === 0 ? { ok: false, code: 'SHOW_NOT_FOUND' } : { ok: false, stale: 'show' };
    },
    async availability(showId) {
      return db.read(async (c) => {
        const exists = await c.query('SELECT 1 FROM shows WHERE show_id = $1', [showId]);
        if (exists.rowCount === 0) return null;
        return sectionAvailability(c, showId);
      });
    },
  };
}

/** Counted sections: the sum of their buckets; sections sold by seat: their AVAILABLE seats. One statement, one snapshot. */
export async function sectionAvailability(c: pg.ClientBase, showId: string): Promise<SectionAvailability[]> {
  const { rows } = await c.query<{ section_id: string; kind: SectionAvailability['kind']; sell_by: SellBy; capacity: number; available: number; sold: number; buckets: [number, number, number][] | null }>(
    `SELECT c.section_id, c.kind, c.sell_by, c.capacity,
       CASE WHEN c.kind = 'SEATED' AND c.sell_by = 'SEAT'
         THEN (SELECT count(*) FROM seats s WHERE s.show_id = c.show_id AND s.section_id = c.section_id AND s.status = 'AVAILABLE')
         ELSE (SELECT coalesce(sum(b.available), 0) FROM stock_buckets b WHERE b.show_id = c.show_id AND b.section_id = c.section_id)
       END::int AS available,
       (SELECT coalesce(sum(b.sold), 0) FROM stock_buckets b WHERE b.show_id = c.show_id AND b.section_id = c.section_id)::int AS sold,
       (SELECT json_agg(json_build_array(b.bucket, b.available, b.version) ORDER BY b.bucket) FROM stock_buckets b
         WHERE b.show_id = c.show_id AND b.section_id = c.section_id) AS buckets
     FROM sections c WHERE c.show_id = $1 ORDER BY c.position`, [showId]);
  return rows.map((r) => ({
    sectionId: r.section_id, kind: r.kind, sellBy: r.sell_by, capacity: r.capacity, available: r.available, sold: r.sold,
    ...(r.buckets === null ? {} : { buckets: r.buckets.map(([bucket, available, version]) => ({ bucket, available, version })) }),
  }));
}
