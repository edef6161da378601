import { createHash } from 'node:crypto';
import type { SeatPosition, SeatStatus, SectionKind, Show } from '../domain/index.js';
import type { InventoryChanges, SeatChange, SeatMapLoad, Store } from '../ports/engine/index.js';
import { SeatFeed } from './seat-feed.js';

const statusCodes: readonly SeatStatus[] = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'];
const statusIndex = new Map(statusCodes.map((s, i) => [s, i]));
/** One character per seat in the compact form, in seat order. */
const compactChars = 'AHSR';
/**
 * Show ids found missing are remembered this long, so a flood of made-up ids costs the store one
 * read each per second at most instead of one per request (reads share the queue holds commit in).
 */
const missingShowTtlMs = 1_000;
const missingShowsMax = 10_000;

interface SectionState {
  readonly id: string;
  readonly kind: SectionKind;
  readonly counted: boolean;
  readonly capacity: number;
  /** Counted sections: the stock left. Sections sold by seat: seats AVAILABLE. */
  available: number;
}

interface ShowSeats {
  readonly show: Show;
  readonly seatIds: readonly string[];
  readonly positions: readonly Omit<SeatPosition, 'available'>[];
  readonly index: ReadonlyMap<string, number>;
  readonly statuses: Uint8Array;
  readonly versions: Uint32Array;
  readonly sections: ReadonlyMap<string, SectionState>;
  /** JSON of each seat up to its status value, so a snapshot is one concatenation. */
  readonly jsonPrefixes: readonly string[];
  version: number;
  snapshot: Snapshot | null;
}

export interface Snapshot {
  readonly version: number;
  readonly etag: string;
  readonly json: string;
  readonly compactJson: string;
}

export interface Availability {
  readonly version: number;
  readonly sections: { id: string; kind: SectionKind; capacity: number; available: number }[];
}

/**
 * The read model of every show's seats and counted stock, kept in memory so a rush of seat-map
 * reads never touches the store. It is fed with the `changes` each store operation returns; every
 * seat carries its version, so a late or repeated seat change can never roll a seat back, and
 * stock changes are deltas applied once per committed operation.
 */
export class SeatMapCache {
  private readonly shows = new Map<string, ShowSeats>();
  private readonly loading = new Map<string, Promise<ShowSeats | null>>();
  private readonly pending = new Map<string, InventoryChanges[]>();
  /** Show id -> until when it is known not to exist. */
  private readonly missing = new Map<string, number>();
  /** Distinguishes ETags across restarts, when versions start again from zero. */
  readonly epoch: string;
  /** Every change applied here, in order, for the live streams (GET /shows/{id}/events). */
  readonly feed: SeatFeed;

  constructor(private readonly store: Pick<Store, 'loadSeatMap'> & Partial<Pick<Store, 'availability'>>, private readonly now: () => number, epochSeed: string) {
    this.epoch = createHash('sha256').update(epochSeed).digest('hex').slice(0, 8);
    this.feed = new SeatFeed(now);
  }

  async get(showId: string): Promise<ShowSeats | null> {
    const ready = this.shows.get(showId);
    if (ready !== undefined) return ready;
    if ((this.missing.get(showId) ?? 0) > this.now()) return null;
    let load = this.loading.get(showId);
    if (load === undefined) {
      load = this.load(showId).finally(() => this.loading.delete(showId));
      this.loading.set(showId, load);
    }
    return load;
  }

  async show(showId: string): Promise<Show | null> {
    return (await this.get(showId))?.show ?? null;
  }

  /** What a committed store operation changed. */
  apply(changes: InventoryChanges | null): void {
    if (changes === null || (changes.seats.length === 0 && changes.stock.length === 0)) return;
    const entry = this.shows.get(changes.showId);
    if (entry !== undefined) {
      if (this.applyChanges(entry, changes)) this.feed.changed(changes.showId);
    } else this.pending.get(changes.showId)?.push(changes);
  }

  async snapshot(showId: string): Promise<Snapshot | null> {
    const entry = await this.get(showId);
    if (entry === null) return null;
    if (entry.snapshot?.version !== entry.version) entry.snapshot = this.render(entry);
    return entry.snapshot;
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
      const i = entry.index.get(id);
      return i === undefined || entry.statuses[i] === 0;
    });
  }

  /** Known counted stock below `quantity`: lets a doomed units claim fail without touching the store. */
  stockBelow(entry: ShowSeats, sectionId: string, quantity: number): boolean {
    const section = entry.sections.get(sectionId);
    return section !== undefined && section.counted && section.available < quantity;
  }

  /** Where the given seats are; unknown ids are left out. */
  placesOf(entry: ShowSeats, seatIds: readonly string[]): Omit<SeatPosition, 'available'>[] {
    return seatIds.flatMap((id) => {
      const i = entry.index.get(id);
      const place = i === undefined ? undefined : entry.positions[i];
      return place === undefined ? [] : [place];
    });
  }

  counts(entry: ShowSeats): Record<SeatStatus, number> {
    const counts: Record<SeatStatus, number> = { AVAILABLE: 0, HELD: 0, SOLD: 0, REFUND_PENDING: 0 };
    for (const s of entry.statuses) counts[statusCodes[s] as SeatStatus]++;
    return counts;
  }

  private async load(showId: string): Promise<ShowSeats | null> {
    this.pending.set(showId, []);
    const loaded: SeatMapLoad | null = await this.store.loadSeatMap(showId).catch((error: unknown) => {
      this.pending.delete(showId);
      throw error;
    });
    // Changes committed while loading may or may not be in what was read: seat changes carry
    // versions (applied only if newer); stock is taken as read (its deltas would count twice).
    const buffered = this.pending.get(showId) ?? [];
    this.pending.delete(showId);
    if (loaded === null) {
      this.rememberMissing(showId);
      return null;
    }
    const entry = buildEntry(loaded);
    for (const changes of buffered) for (const seat of changes.seats) this.applySeat(entry, seat);
    this.shows.set(showId, entry);
    // Stock moved while loading: whether the load saw it is unknown, so the counts are read again
    // (changes arriving from now on apply to the entry as deltas, on top of what this read sees or not:
    // a read racing them can be off by them until the next such resync, which is rare and bounded).
    if (buffered.some((c) => c.stock.length > 0)) void this.resyncStock(entry).catch(() => undefined);
    return entry;
  }

  private async resyncStock(entry: ShowSeats): Promise<void> {
    const sections = await this.store.availability?.(entry.show.showId);
    for (const read of sections ?? []) {
      const section = entry.sections.get(read.sectionId);
      if (section === undefined || !section.counted || section.available === read.available) continue;
      section.available = read.available;
      entry.version++;
    }
  }

  /** A show created after its id was looked up (only possible across nodes) is found again at once. */
  forgetMissing(showId: string): void {
    this.missing.delete(showId);
  }

  private rememberMissing(showId: string): void {
    // Bounded: the oldest entries go first (a Map iterates in insertion order).
    this.missing.delete(showId);
    if (this.missing.size >= missingShowsMax) this.missing.delete(this.missing.keys().next().value as string);
    this.missing.set(showId, this.now() + missingShowTtlMs);
  }

  /** True when anything really changed (a late or repeated seat change is ignored). */
  private applyChanges(entry: ShowSeats, changes: InventoryChanges): boolean {
    let changed = false;
    for (const seat of changes.seats) changed = this.applySeat(entry, seat) || changed;
    for (const stock of changes.stock) {
      const section = entry.sections.get(stock.sectionId);
      if (section === undefined || !section.counted || stock.delta === 0) continue;
      section.available = Math.min(section.capacity, section.available + stock.delta);
      entry.version++;
      // Counted stock has no seat to show; the live log keeps its version so streams stay continuous.
      this.feed.recordStock(entry.show.showId, entry.version);
      changed = true;
    }
    return changed;
  }

  private applySeat(entry: ShowSeats, seat: SeatChange): boolean {
    const i = entry.index.get(seat.seatId);
    if (i === undefined || (entry.versions[i] as number) >= seat.version) return false;
    const before = entry.statuses[i] as number;
    const after = statusIndex.get(seat.status) ?? 0;
    entry.versions[i] = seat.version;
    entry.statuses[i] = after;
    const section = entry.sections.get((entry.positions[i] as Omit<SeatPosition, 'available'>).section);
    if (section !== undefined && !section.counted && before !== after) section.available += (after === 0 ? 1 : 0) - (before === 0 ? 1 : 0);
    entry.version++;
    this.feed.record(entry.show.showId, i, after, entry.version);
    return true;
  }

  private render(entry: ShowSeats): Snapshot {
    const parts: string[] = [];
    let compact = '';
    for (let i = 0; i < entry.statuses.length; i++) {
      const code = entry.statuses[i] as number;
      parts.push(`${entry.jsonPrefixes[i]}${statusCodes[code]}"}`);
      compact += compactChars[code];
    }
    const { version } = entry;
    const sections = JSON.stringify(this.availability(entry).sections);
    const head = `{"showId":${JSON.stringify(entry.show.showId)},"version":${version},"sections":${sections}`;
    return {
      version,
      etag: `"${this.epoch}-${version}"`,
      json: `${head},"seats":[${parts.join(',')}]}`,
      compactJson: `${head},"legend":{"A":"AVAILABLE","H":"HELD","S":"SOLD","R":"REFUND_PENDING"},"seatIds":${JSON.stringify(entry.seatIds)},"statuses":"${compact}"}`,
    };
  }
}

function buildEntry(loaded: SeatMapLoad): ShowSeats {
  const { show, seats } = loaded;
  const statuses = new Uint8Array(seats.length);
  const versions = new Uint32Array(seats.length);
  seats.forEach((s, i) => {
    statuses[i] = statusIndex.get(s.status) ?? 0;
    versions[i] = s.version;
  });
  const prices = new Map(show.seatMap.sections.map((s) => [s.id, s.priceCents]));
  const sections = new Map<string, SectionState>(loaded.sections.map((s) => [s.sectionId, {
    id: s.sectionId, kind: s.kind, counted: s.kind === 'GENERAL_ADMISSION' || s.sellBy === 'QUANTITY', capacity: s.capacity, available: s.available,
  }]));
  return {
    show,
    seatIds: seats.map((s) => s.seatId),
    positions: seats.map(({ seatId, section, row, number, accessible }) => ({ seatId, section, row, number, accessible })),
    index: new Map(seats.map((s, i) => [s.seatId, i])),
    statuses,
    versions,
    sections,
    jsonPrefixes: seats.map(
      (s) =>
        `{"seatId":${JSON.stringify(s.seatId)},"section":${JSON.stringify(s.section)},"row":${s.row},"number":${s.number},"priceCents":${prices.get(s.section) ?? 0},"accessible":${s.accessible},"status":"`,
    ),
    version: 0,
    snapshot: null,
  };
}
