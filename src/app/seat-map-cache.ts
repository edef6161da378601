import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { SeatLayout, limits, type SeatStatus, type SectionKind, type Show } from '../domain/index.js';
import type { BucketState, InventoryChanges, SeatChange, SectionAvailability, Store } from '../ports/engine/index.js';
import { AvailabilityRenderer, type Availability, type AvailabilityBody } from './availability-body.js';

export type { Availability } from './availability-body.js';
import { SeatFeed } from './seat-feed.js';
import { SeatMapRenderer, type RenderedMap } from './seat-map-render.js';
import { ShowVersion, versionKeys } from './show-version.js';

const statusCodes: readonly SeatStatus[] = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'];
const statusIndex = new Map(statusCodes.map((s, i) => [s, i]));
/**
 * Show ids found missing are remembered this long, so a flood of made-up ids costs the store one
 * read each per second at most instead of one per request (reads share the queue holds commit in).
 */
const missingShowTtlMs = 1_000;
const missingShowsMax = 10_000;
/** Seats the read model keeps in memory when the configuration does not say (about 100 MB at most). */
export const readModelSeatsMaxDefault = 1_000_000;
/** Stock buckets per counted section the read model keeps (PostgreSQL makes 16; SQLite 1). */
const bucketsPerSectionMax = 4096;

export interface SectionState {
  readonly id: string;
  readonly name: string;
  readonly kind: SectionKind;
  readonly counted: boolean;
  readonly capacity: number;
  readonly priceCents: number;
  /** Its place in the seat map (a key of its buckets in the show's version). */
  readonly position: number;
  /** Counted sections: the stock left (the sum of its buckets'). Sections sold by seat: seats AVAILABLE. */
  available: number;
  /** Counted sections: each stock bucket as last stored (by bucket number); empty otherwise. */
  readonly bucketAvailable: number[];
  readonly bucketVersions: number[];
  /**
   * Sold: seats SOLD of a section sold by seat; units sold of a counted one (the store's counter,
   * then the `sold` of each stock change), whose seats, if any, are only picked at ticketing.
   */
  sold: number;
  /** Sections sold by seat: seats HELD, and seats REFUND_PENDING (counted sections: 0, see saleFigures). */
  held: number;
  refundPending: number;
}

/** One show in the read model: a status byte and a version per seat, nothing per seat besides. */
export interface ShowSeats {
  /** Replaced by an edit (replaceShow); the seat map in it never changes. */
  show: Show;
  readonly layout: SeatLayout;
  readonly statuses: Uint8Array;
  readonly versions: Uint32Array;
  /** Bit b (most significant bit of byte 0 first) is 1 when seat b of the sections sold by seat is AVAILABLE. */
  readonly bitmap: Uint8Array;
  /** Seats per status, in statusCodes order. */
  readonly counts: Uint32Array;
  readonly sections: ReadonlyMap<string, SectionState>;
  readonly map: SeatMapRenderer;
  readonly availabilityBody: AvailabilityRenderer;
  /** The version and digest of the stored state this entry holds (show-version.ts). */
  readonly state: ShowVersion;
  /** The sum of the stored versions of the show's seats, stock buckets and details: the same on every process. */
  readonly version: number;
  /** Tells a show apart from an earlier one with the same id (a recreated demo show starts its versions again). */
  readonly epoch: string;
  /** When it was last read (the cache's own counter): the least recently used goes first. */
  lastUsed: number;
}

export interface SeatMapCacheOptions {
  /** Seats of all loaded shows together; past it the least recently used shows are dropped. */
  readonly seatsMax?: number;
}

/**
 * The read model of every show's seats and counted stock, kept in memory so a rush of seat-map
 * reads never touches the store. It is fed with the `changes` each store operation returns; every
 * seat carries its version, so a late or repeated seat change can never roll a seat back, and
 * stock changes are deltas applied once per committed operation.
 *
 * Bounded: shows are kept in least-recently-used order up to `seatsMax` seats in all and reloaded
 * on demand. Loading reads seat states in keyset pages, yielding between them, so a 100,000-seat
 * show loads without stalling the process; every seat change is O(1) (a byte, a version, a bit, a
 * counter and a dirty mark on the rendered chunk that holds it).
 */
export class SeatMapCache {
  /** In least-recently-used order: a read moves its show to the end. */
  private readonly shows = new Map<string, ShowSeats>();
  private readonly loading = new Map<string, Promise<ShowSeats | null>>();
  private readonly pending = new Map<string, { changes: InventoryChanges }[]>();
  /** Show id -> until when it is known not to exist. */
  private readonly missing = new Map<string, number>();
  private readonly evictedVersions = new Map<string, number>();
  private uses = 0;
  /** Stock re-reads in flight, per show (applyRemote). */
  private readonly resyncs = new Map<string, { again: boolean }>();
  private changedStock = false;
  private seatsLoaded = 0;
  private readonly seatsMax: number;
  /** Every change applied here, in order, for the live streams and `?since=` reads. */
  readonly feed: SeatFeed;

  constructor(
    private readonly store: Pick<Store, 'loadSeatMap' | 'seatStates'> & Partial<Pick<Store, 'availability'>>,
    private readonly now: () => number,
    options: SeatMapCacheOptions = {},
  ) {
    this.feed = new SeatFeed(now);
    this.seatsMax = options.seatsMax ?? readModelSeatsMaxDefault;
  }

  /**
   * The show if it is in memory now, marked as just used: the hot path of every read, synchronous
   * and O(1) (one lookup and a counter; eviction, which is rare, does the searching).
   */
  hit(showId: string): ShowSeats | null {
    const ready = this.shows.get(showId);
    if (ready === undefined) return null;
    ready.lastUsed = ++this.uses;
    return ready;
  }

  async get(showId: string): Promise<ShowSeats | null> {
    const ready = this.hit(showId);
    if (ready !== null) return ready;
    if ((this.missing.get(showId) ?? 0) > this.now()) return null;
    let load = this.loading.get(showId);
    if (load === undefined) {
      load = this.load(showId).finally(() => this.loading.delete(showId));
      this.loading.set(showId, load);
    }
    return load;
  }

  /** The show if it is in memory now (no load, no reordering). */
  loaded(showId: string): ShowSeats | null {
    return this.shows.get(showId) ?? null;
  }

  async show(showId: string): Promise<Show | null> {
    return (await this.get(showId))?.show ?? null;
  }

  /** Shows and seats in memory now (for metrics and tests). */
  get size(): { shows: number; seats: number } {
    return { shows: this.shows.size, seats: this.seatsLoaded };
  }

  /** What a committed store operation of this process changed. */
  apply(changes: InventoryChanges | null): void {
    this.applyFrom(changes, true);
  }

  /**
   * What another process committed (from the outbox feed). Seat changes and stock buckets carry
   * their stored versions, so they apply exactly as local ones: a change this process already has
   * (in a snapshot, or applied before) is ignored, whatever order they arrive in. What carries no
   * bucket states (a sale's `sold`, a row written before buckets were reported) makes the show's
   * counters be read again (one read per show however many such changes arrive meanwhile): a
   * delta may already be in a snapshot this process loaded after the change committed.
   */
  applyRemote(changes: InventoryChanges | null): void {
    this.applyFrom(changes, false);
  }

  private applyFrom(changes: InventoryChanges | null, local: boolean): void {
    if (changes === null || (changes.seats.length === 0 && changes.stock.length === 0)) return;
    const entry = this.shows.get(changes.showId);
    // Not loaded: a load reads everything anyway; loading now: buffered, applied after.
    if (entry === undefined) {
      this.pending.get(changes.showId)?.push({ changes });
      return;
    }
    const outcome = this.applyChanges(entry, changes, local);
    if (outcome.changed) this.feed.changed(changes.showId);
    if (outcome.resync) this.resyncSoon(entry);
  }

  /** One stock re-read per show in flight; changes arriving meanwhile ask for one more after it. */
  private resyncSoon(entry: ShowSeats): void {
    const showId = entry.show.showId;
    const state = this.resyncs.get(showId);
    if (state !== undefined) {
      state.again = true;
      return;
    }
    const run = { again: false };
    this.resyncs.set(showId, run);
    const loop = async (): Promise<void> => {
      try {
        do {
          run.again = false;
          await this.resyncStock(entry);
          if (this.changedStock) {
            this.changedStock = false;
            this.feed.changed(showId);
          }
        } while (run.again && this.shows.get(showId) === entry);
      } finally {
        this.resyncs.delete(showId);
      }
    };
    void loop().catch(() => undefined);
  }

  /**
   * A show's details changed on another process (show.changed): a show it did not know is looked
   * up again at once, and a loaded one takes the new details.
   */
  async refreshShow(showId: string, read: (showId: string) => Promise<Show | null>): Promise<void> {
    this.forgetMissing(showId);
    if (!this.shows.has(showId)) return;
    const show = await read(showId);
    if (show !== null) this.replaceShow(show);
  }

  /** The full (per-seat) or compact seat map at the current version, rendered incrementally. */
  async seatMap(showId: string, form: 'full' | 'compact'): Promise<RenderedMap | null> {
    const entry = await this.get(showId);
    if (entry === null) return null;
    return entry.map.render(form, this.etag(entry, form === 'compact' ? '-c' : ''), this.availability(entry));
  }

  /** The compact availability (a bitmap of seats plus every section's count) at the current version. */
  async availabilityBody(showId: string): Promise<AvailabilityBody | null> {
    const entry = await this.get(showId);
    if (entry === null) return null;
    return entry.availabilityBody.render(entry.version, this.etag(entry, 'a'), entry.bitmap, this.availability(entry));
  }

  /**
   * `"<epoch>-<version>-<digest><form>"`: a function of the stored state alone (show-version.ts),
   * so every process with the same state answers the same tag. The web client reads the epoch.
   */
  etag(entry: ShowSeats, form = ''): string {
    return `"${entry.epoch}-${entry.version}-${entry.state.digest}${form}"`;
  }

  /** Every section's capacity and what is left of it, at the read model's version. */
  availability(entry: ShowSeats): Availability {
    return {
      version: entry.version,
      sections: [...entry.sections.values()].map((s) => ({ id: s.id, kind: s.kind, capacity: s.capacity, available: Math.max(0, s.available) })),
    };
  }

  /** False as soon as one seat is known taken: lets a doomed hold fail without touching the store. */
  allAvailable(entry: ShowSeats, seatIds: readonly string[]): boolean {
    return seatIds.every((id) => {
      const i = entry.layout.indexOf(id);
      return i < 0 || entry.statuses[i] === 0;
    });
  }

  /** Known counted stock below `quantity`: lets a doomed units claim fail without touching the store. */
  stockBelow(entry: ShowSeats, sectionId: string, quantity: number): boolean {
    const section = entry.sections.get(sectionId);
    return section !== undefined && section.counted && section.available < quantity;
  }

  /**
   * Known free seats of the sections sold by seat (`sectionId`'s, or every such section's) below
   * `quantity`: lets a doomed best-available claim fail without touching the store.
   */
  seatsBelow(entry: ShowSeats, sectionId: string | undefined, quantity: number): boolean {
    let free = 0;
    for (const section of entry.sections.values()) {
      if (section.counted || (sectionId !== undefined && section.id !== sectionId)) continue;
      free += section.available;
      if (free >= quantity) return false;
    }
    return true;
  }

  /** Where the given seats are; unknown ids are left out. */
  placesOf(entry: ShowSeats, seatIds: readonly string[]): { seatId: string; section: string; row: number; number: number; accessible: boolean }[] {
    return seatIds.flatMap((id) => {
      const i = entry.layout.indexOf(id);
      if (i < 0) return [];
      const { seatId, section, row, number, accessible } = entry.layout.seatAt(i);
      return [{ seatId, section, row, number, accessible }];
    });
  }

  counts(entry: ShowSeats): Record<SeatStatus, number> {
    return { AVAILABLE: entry.counts[0] ?? 0, HELD: entry.counts[1] ?? 0, SOLD: entry.counts[2] ?? 0, REFUND_PENDING: entry.counts[3] ?? 0 };
  }

  /**
   * A show's edited details (words and times; the seat map never changes), as the store returned
   * them: the read model, its ETags and the catalog see them at once. A version older than the one
   * held (two edits answered out of order) is ignored.
   */
  replaceShow(show: Show): void {
    const entry = this.shows.get(show.showId);
    if (entry === undefined || show.version <= entry.show.version) return;
    entry.state.move(versionKeys.show, entry.show.version, show.version);
    entry.show = show;
    // No seat moved; the live log keeps the version so streams stay continuous.
    this.feed.recordStock(show.showId, entry.version);
    this.feed.changed(show.showId);
  }

  /** A show created after its id was looked up (only possible across nodes) is found again at once. */
  forgetMissing(showId: string): void {
    this.missing.delete(showId);
  }

  private async load(showId: string): Promise<ShowSeats | null> {
    this.pending.set(showId, []);
    try {
      const loaded = await this.store.loadSeatMap(showId);
      if (loaded === null) {
        this.rememberMissing(showId);
        return null;
      }
      const entry = newEntry(loaded.show, loaded.sections);
      // Seat states in keyset pages, each a short read; changes committed meanwhile are buffered
      // and applied after (a seat takes its newest version, whichever arrives first).
      let after: string | null = null;
      for (;;) {
        const page = await this.store.seatStates(showId, after, limits.seatStatePageMax);
        for (const seat of page) {
          const i = entry.layout.indexOf(seat.seatId);
          if (i >= 0) setSeat(entry, i, statusIndex.get(seat.status) ?? 0, seat.version);
        }
        if (page.length < limits.seatStatePageMax) break;
        after = (page[page.length - 1] as { seatId: string }).seatId;
        await yieldToLoop();
      }
      // Changes committed meanwhile: each seat and bucket takes its newest version, whichever came
      // first. Whether the load saw a sale's `sold` is unknown, even this process's own: all apply
      // as remote ones (a `sold` makes the counters be read again).
      let resync = false;
      for (const { changes } of this.pending.get(showId) ?? []) resync = this.applyChanges(entry, changes, false).resync || resync;
      this.admit(entry);
      if (resync) this.resyncSoon(entry);
      return entry;
    } finally {
      this.pending.delete(showId);
    }
  }

  private admit(entry: ShowSeats): void {
    const showId = entry.show.showId;
    this.shows.set(showId, entry);
    this.seatsLoaded += entry.statuses.length;
    this.feed.open(showId, entry.layout.size, (i) => entry.layout.seatIdAt(i), entry.version);
    entry.lastUsed = ++this.uses;
    // Least recently used first; the show just loaded stays even when it alone is over the bound.
    while (this.seatsLoaded > this.seatsMax) {
      let oldest: ShowSeats | null = null;
      for (const candidate of this.shows.values()) {
        if (candidate !== entry && (oldest === null || candidate.lastUsed < oldest.lastUsed)) oldest = candidate;
      }
      if (oldest === null) break;
      this.evict(oldest.show.showId, oldest);
    }
  }

  private evict(showId: string, entry: ShowSeats): void {
    this.shows.delete(showId);
    this.seatsLoaded -= entry.statuses.length;
    // A reload derives the same version from the same stored state, so nothing is remembered.
    this.feed.close(showId);
  }

  /** Every counted section's buckets and sold counter as stored now; each bucket keeps its newest version. */
  private async resyncStock(entry: ShowSeats): Promise<void> {
    const sections = await this.store.availability?.(entry.show.showId);
    let moved = false;
    for (const read of sections ?? []) {
      const section = entry.sections.get(read.sectionId);
      if (section === undefined || !section.counted) continue;
      section.sold = read.sold;
      for (const bucket of bucketsOf(read)) moved = setBucket(entry, section, bucket) || moved;
    }
    if (!moved) return;
    this.feed.recordStock(entry.show.showId, entry.version);
    this.changedStock = true;
  }

  private rememberMissing(showId: string): void {
    // Bounded: the oldest entries go first (a Map iterates in insertion order).
    this.missing.delete(showId);
    if (this.missing.size >= missingShowsMax) this.missing.delete(this.missing.keys().next().value as string);
    this.missing.set(showId, this.now() + missingShowTtlMs);
  }

  /**
   * `changed` when anything really changed (a late or repeated change is ignored); `resync` when
   * a stock change carried no bucket states to apply, or a remote sale's `sold` (see applyRemote).
   */
  private applyChanges(entry: ShowSeats, changes: InventoryChanges, local: boolean): { changed: boolean; resync: boolean } {
    let changed = false;
    let resync = false;
    for (const seat of changes.seats) changed = this.applySeat(entry, seat) || changed;
    let moved = false;
    for (const stock of changes.stock) {
      const section = entry.sections.get(stock.sectionId);
      if (section === undefined || !section.counted) continue;
      // A sale moves units from held to sold: a figure for the organizer, nothing a buyer sees.
      // A remote one may already be in what this process read, so the counter is read again.
      if (stock.sold !== undefined && stock.sold !== 0) {
        if (local) section.sold += stock.sold;
        else resync = true;
      }
      if (stock.buckets === undefined) {
        if (stock.delta !== 0) resync = true;
        continue;
      }
      for (const bucket of stock.buckets) moved = setBucket(entry, section, bucket) || moved;
    }
    if (moved) {
      // Counted stock has no seat to show; the live log keeps its version so streams stay continuous.
      this.feed.recordStock(entry.show.showId, entry.version);
      changed = true;
    }
    return { changed, resync };
  }

  private applySeat(entry: ShowSeats, seat: SeatChange): boolean {
    const i = entry.layout.indexOf(seat.seatId);
    if (i < 0 || (entry.versions[i] as number) >= seat.version) return false;
    const after = statusIndex.get(seat.status) ?? 0;
    setSeat(entry, i, after, seat.version);
    entry.map.touch(i, entry.version);
    this.feed.record(entry.show.showId, i, after, entry.version);
    return true;
  }
}

function newEntry(show: Show, loaded: readonly SectionAvailability[]): ShowSeats {
  const layout = new SeatLayout(show.seatMap);
  const specs = new Map(show.seatMap.sections.map((s) => [s.id, s]));
  const positions = new Map(show.seatMap.sections.map((s, i) => [s.id, i]));
  const state = new ShowVersion();
  state.move(versionKeys.show, 0, show.version);
  const sections = new Map<string, SectionState>(loaded.map((s) => {
    const counted = s.kind === 'GENERAL_ADMISSION' || s.sellBy === 'QUANTITY';
    return [s.sectionId, {
      id: s.sectionId, name: specs.get(s.sectionId)?.name ?? s.sectionId, kind: s.kind, counted, capacity: s.capacity,
      priceCents: specs.get(s.sectionId)?.priceCents ?? 0, position: positions.get(s.sectionId) ?? 0,
      // A section sold by seat starts with every seat free, like the seats below; the pages of seat
      // states then take away each one that is not (starting from the store's count took them twice).
      // A counted one starts empty; its buckets, just below, add up to its stock.
      available: counted ? 0 : s.capacity, sold: counted ? s.sold : 0, held: 0, refundPending: 0, bucketAvailable: [], bucketVersions: [],
    }];
  }));
  const entry = buildEntry(show, layout, sections, state);
  for (const s of loaded) {
    const section = sections.get(s.sectionId);
    if (section?.counted !== true) continue;
    for (const bucket of bucketsOf(s)) setBucket(entry, section, bucket, true);
  }
  return entry;
}

function buildEntry(show: Show, layout: SeatLayout, sections: ReadonlyMap<string, SectionState>, state: ShowVersion): ShowSeats {
  const bitmap = new Uint8Array(Math.ceil(layout.bits / 8));
  // Every seat starts AVAILABLE (version 0); the pages of seat states move the others.
  for (const section of layout.sections) if (section.firstBit >= 0) setBits(bitmap, section.firstBit, section.size);
  const counts = new Uint32Array(4);
  counts[0] = layout.size;
  const statuses = new Uint8Array(layout.size);
  return {
    show, layout, statuses, versions: new Uint32Array(layout.size), bitmap, counts, sections,
    map: new SeatMapRenderer(show.showId, layout, statuses), availabilityBody: new AvailabilityRenderer(), state,
    get version() {
      return state.version;
    },
    epoch: createHash('sha256').update(`${show.showId}\u0000${show.createdAt}`).digest('hex').slice(0, 8), lastUsed: 0,
  };
}

/** A counted section's buckets as read; a store that reports none (an older one, a stub) has one: bucket 0 at version 0. */
function bucketsOf(read: SectionAvailability): readonly BucketState[] {
  return read.buckets ?? [{ bucket: 0, available: read.available, version: 0 }];
}

/**
 * Bucket b of a counted section as stored at `version`: taken when newer than what is held (or
 * at load, when everything is new), keeping the section's stock and the show's version in step. O(1).
 */
function setBucket(entry: ShowSeats, section: SectionState, b: BucketState, loading = false): boolean {
  const known = section.bucketVersions[b.bucket];
  if (!loading && known !== undefined && b.version <= known) return false;
  if (b.bucket < 0 || b.bucket >= bucketsPerSectionMax) return false;
  const before = section.bucketAvailable[b.bucket] ?? 0;
  section.bucketAvailable[b.bucket] = b.available;
  section.bucketVersions[b.bucket] = b.version;
  section.available += b.available - before;
  entry.state.move(versionKeys.bucket(section.position, b.bucket), known ?? 0, b.version);
  return b.available !== before || b.version !== (known ?? 0);
}

/** Moves seat i to `code` at `version`, keeping the bitmap and the counters in step. */
function setSeat(entry: ShowSeats, i: number, code: number, version: number): void {
  const before = entry.statuses[i] as number;
  entry.state.move(versionKeys.seat(i), entry.versions[i] as number, version);
  entry.versions[i] = version;
  if (before === code) return;
  entry.statuses[i] = code;
  entry.counts[before] = (entry.counts[before] ?? 0) - 1;
  entry.counts[code] = (entry.counts[code] ?? 0) + 1;
  const laidOut = entry.layout.sectionAt(i);
  const section = entry.sections.get(laidOut.spec.id);
  // A counted section's seats are picked at ticketing: its figures come from its stock and sold counter.
  if (section !== undefined && !section.counted) {
    if (before === 0 || code === 0) section.available += code === 0 ? 1 : -1;
    if (before === 1 || code === 1) section.held += code === 1 ? 1 : -1;
    if (before === 2 || code === 2) section.sold += code === 2 ? 1 : -1;
    if (before === 3 || code === 3) section.refundPending += code === 3 ? 1 : -1;
  }
  if (laidOut.firstBit >= 0) {
    const bit = laidOut.firstBit + (i - laidOut.first);
    const mask = 0x80 >> (bit & 7);
    if (code === 0) entry.bitmap[bit >> 3] = (entry.bitmap[bit >> 3] as number) | mask;
    else entry.bitmap[bit >> 3] = (entry.bitmap[bit >> 3] as number) & ~mask;
  }
}

/** Sets `count` bits from bit `from` (used once per section at load). */
function setBits(bitmap: Uint8Array, from: number, count: number): void {
  for (let bit = from; bit < from + count; bit++) bitmap[bit >> 3] = (bitmap[bit >> 3] as number) | (0x80 >> (bit & 7));
}
