import type { Database, Statement } from 'better-sqlite3';
import { SeatLayout, limits, sectionCapacity, type SectionKind, type SellBy, type Show } from '../../domain/index.js';
import type { CreateShowInput, Page, SectionAvailability, SeatMapLoad, ShowStore, UpdateShowOutcome } from '../../ports/engine/index.js';
import { showChanged } from '../shared/outbox-drafts.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';

export interface SectionInfo {
  readonly id: string;
  readonly kind: SectionKind;
  readonly sellBy: SellBy;
  readonly priceCents: number;
  /** Sold by count (general admission, or seated sold by QUANTITY): claimed with claimUnits. */
  readonly counted: boolean;
}

export interface ShowInfo {
  readonly show: Show;
  readonly sections: ReadonlyMap<string, SectionInfo>;
}

/**
 * Seat maps and sections never change once created (an edit changes only a show's words and
 * times, which the claim path does not read here), so the claim path keeps them in memory:
 * a claim prices its lines and checks its sections without a query. Bounded: the oldest entry
 * goes when full (a show is re-read on its next use).
 */
export interface ShowCache {
  get(showId: string): ShowInfo | null;
}

const showCacheEntriesMax = 1_000;

export function showCache(db: Database): ShowCache {
  const byId = new Map<string, ShowInfo>();
  const showById = db.prepare('SELECT * FROM shows WHERE show_id = ? AND ready = 1');
  const sectionsOf = db.prepare('SELECT * FROM sections WHERE show_id = ? ORDER BY position');
  return {
    get(showId) {
      const cached = byId.get(showId);
      if (cached !== undefined) return cached;
      const row = showById.get(showId) as records.ShowRow | undefined;
      if (row === undefined) return null;
      const sections = new Map<string, SectionInfo>();
      for (const s of sectionsOf.all(showId) as records.SectionRow[]) {
        sections.set(s.section_id, { id: s.section_id, kind: s.kind, sellBy: s.sell_by, priceCents: s.price_cents, counted: s.sell_by === 'QUANTITY' });
      }
      const info: ShowInfo = { show: records.toShow(row), sections };
      if (byId.size >= showCacheEntriesMax) byId.delete(byId.keys().next().value as string);
      byId.set(showId, info);
      return info;
    },
  };
}

export function sqliteShows(db: Database, gc: GroupCommit, ob: OutboxWriter): ShowStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    showById: db.prepare('SELECT * FROM shows WHERE show_id = ? AND ready = 1'),
    publish: db.prepare('UPDATE shows SET ready = 1 WHERE show_id = ?'),
    // Keyset page over the primary key (show_id, seat_id): an index range read of `limit` rows.
    seatStates: db.prepare(`SELECT seat_id, status, version FROM seats
      WHERE show_id = ? AND seat_id > ? ORDER BY seat_id LIMIT ?`),
    // The catalog's order lives here, not in a sort of one page, so page 2 never holds what page 1
    // promised. The phases match saleWindow(): UPCOMING while now < sale_starts_at, ON_SALE while
    // now < sale_ends_at, ENDED after. Shows are few (one row per event), so a sort per page is cheap.
    // A flash sale's or bargain's show carries its stock; the catalog lists the campaign instead.
    showList: db.prepare(`SELECT * FROM shows WHERE ready = 1 AND campaign IS NULL AND NOT EXISTS (SELECT 1 FROM flash_sales f WHERE f.flash_sale_id = shows.show_id)
      ORDER BY
        CASE WHEN @now < sale_starts_at THEN 1 WHEN @now < sale_ends_at THEN 0 ELSE 2 END,
        CASE WHEN @now < sale_starts_at THEN sale_starts_at WHEN @now < sale_ends_at THEN sale_ends_at ELSE -sale_ends_at END,
        show_id
      LIMIT @limit OFFSET @offset`),
    showInsert: db.prepare(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, max_seats_per_user, created_at,
        description, image_url, currency, version, ready, campaign, refund_until_hours_before, exchange_until_hours_before)
      VALUES (@showId, @title, @venue, @city, @startsAt, @saleStartsAt, @saleEndsAt, @seatMap, @capacity, @maxSeatsPerUser, @createdAt,
        @description, @imageUrl, @currency, @version, 0, @campaign, @refundUntilHoursBefore, @exchangeUntilHoursBefore)`),
    // Compare-and-set on the version: of two edits decided on one version, the second is stale.
    showUpdate: db.prepare(`UPDATE shows SET title = @title, description = @description, image_url = @imageUrl, venue = @venue, city = @city,
        starts_at = @startsAt, sale_starts_at = @saleStartsAt, sale_ends_at = @saleEndsAt,
        refund_until_hours_before = @refundUntilHoursBefore, exchange_until_hours_before = @exchangeUntilHoursBefore, version = version + 1
      WHERE show_id = @showId AND ready = 1 AND version = @expectedVersion RETURNING *`),
    sectionInsert: db.prepare(`INSERT INTO sections (show_id, section_id, position, name, kind, sell_by, price_cents, rows_count, seats_per_row, capacity, available)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    sections: db.prepare('SELECT * FROM sections WHERE show_id = ? ORDER BY position'),
  };
  const seatInserts = new Map<number, Statement>();
  /** One multi-row INSERT per chunk: a 200,000-seat show is ~100 statements, not 200,000. */
  const seatInsert = (rows: number): Statement => {
    let statement = seatInserts.get(rows);
    if (statement === undefined) {
      const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, 'AVAILABLE', NULL, 0)").join(', ');
      statement = db.prepare(`INSERT INTO seats (show_id, seat_id, section, row_no, seat_no, accessible, status, hold_id, version) VALUES ${values}`);
      seatInserts.set(rows, statement);
    }
    return statement;
  };

  return {
    /**
     * The show and its sections first (unpublished), then the seats one chunk per unit of the group
     * commit, each awaited, so other requests' commits run in between; the last chunk publishes.
     */
    async createShow({ show, audit }: CreateShowInput) {
      await gc.write('createShow', () => {
        q.showInsert.run({
          ...show, seatMap: JSON.stringify(show.seatMap), campaign: show.campaign ?? null,
          refundUntilHoursBefore: show.refundUntilHoursBefore ?? null, exchangeUntilHoursBefore: show.exchangeUntilHoursBefore ?? null,
        });
        show.seatMap.sections.forEach((section, position) => {
          const capacity = sectionCapacity(section);
          const seated = section.kind === 'SEATED';
          q.sectionInsert.run(
            show.showId, section.id, position, section.name, section.kind, seated ? section.sellBy : 'QUANTITY', section.priceCents,
            seated ? section.rows : null, seated ? section.seatsPerRow : null, capacity, capacity,
          );
        });
      });
      const layout = new SeatLayout(show.seatMap);
      let start = 0;
      do {
        const end = Math.min(layout.size, start + limits.seatInsertChunkMax);
        const from = start;
        await gc.write('createShow', () => {
          if (end > from) seatInsert(end - from).run(seatRows(show.showId, layout, from, end));
          if (end === layout.size) {
            q.publish.run(show.showId);
            ob.append(show.createdAt, [showChanged(show)]);
            auditLog.append(audit);
          }
        });
        start = end;
      } while (start < layout.size);
    },
    getShow: async (showId) => {
      const row = q.showById.get(showId) as records.ShowRow | undefined;
      return row === undefined ? null : records.toShow(row);
    },
    listShows: async (page: Page, now: number) =>
      (q.showList.all({ now, limit: page.limit, offset: page.offset }) as records.ShowRow[]).map(records.toShow),
    async loadSeatMap(showId): Promise<SeatMapLoad | null> {
      const row = q.showById.get(showId) as records.ShowRow | undefined;
      if (row === undefined) return null;
      return { show: records.toShow(row), sections: (q.sections.all(showId) as records.SectionRow[]).map(records.toSectionAvailability) };
    },
    async seatStates(showId, afterSeatId, limit) {
      const rows = q.seatStates.all(showId, afterSeatId ?? '', Math.min(limit, limits.seatStatePageMax)) as Pick<records.SeatRow, 'seat_id' | 'status' | 'version'>[];
      return rows.map((r) => ({ seatId: r.seat_id, status: r.status, version: r.version }));
    },
    updateShow: (input) =>
      gc.write('updateShow', (): UpdateShowOutcome => {
        const row = q.showUpdate.get({
          ...input.details, showId: input.showId, expectedVersion: input.expectedVersion,
          refundUntilHoursBefore: input.details.refundUntilHoursBefore ?? null, exchangeUntilHoursBefore: input.details.exchangeUntilHoursBefore ?? null,
        }) as records.ShowRow | undefined;
        if (row !== undefined) {
          const show = records.toShow(row);
          ob.append(input.now ?? Date.now(), [showChanged(show)]);
          auditLog.append(input.audit);
          return { ok: true, show };
        }
        return q.showById.get(input.showId) === undefined ? { ok: false, code: 'SHOW_NOT_FOUND' } : { ok: false, stale: 'show' };
      }),
    async availability(showId): Promise<SectionAvailability[] | null> {
      const sections = (q.sections.all(showId) as records.SectionRow[]).map(records.toSectionAvailability);
      if (sections.length > 0) return sections;
      return q.showById.get(showId) === undefined ? null : [];
    },
  };
}

/** The columns of seats from..end-1 of the canonical order, flat, for one multi-row INSERT. */
function seatRows(showId: string, layout: SeatLayout, from: number, end: number): (string | number)[] {
  const values: (string | number)[] = [];
  for (let i = from; i < end; i++) {
    const seat = layout.seatAt(i);
    values.push(showId, seat.seatId, seat.section, seat.row, seat.number, seat.accessible ? 1 : 0);
  }
  return values;
}

/** A show whose creation a crash cut short (never published): its seats, sections and row go. */
export function removeUnpublishedShows(db: Database): number {
  const unpublished = db.prepare('SELECT show_id FROM shows WHERE ready = 0').pluck().all() as string[];
  const remove = ['seats', 'sections', 'shows'].map((table) => db.prepare(`DELETE FROM ${table} WHERE show_id = ?`));
  db.transaction(() => {
    for (const showId of unpublished) for (const statement of remove) statement.run(showId);
  })();
  return unpublished.length;
}
