import { createHash } from 'node:crypto';
import type { Seat, SeatPosition, SeatStatus, Show } from '../domain/index.js';
import type { BookingStore } from '../ports/store.js';

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

interface ShowSeats {
  readonly show: Show;
  readonly seatIds: readonly string[];
  readonly positions: readonly Omit<SeatPosition, 'available'>[];
  readonly index: ReadonlyMap<string, number>;
  readonly statuses: Uint8Array;
  readonly versions: Uint32Array;
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

/**
 * The read model of every show's seats, kept in memory so a rush of seat-map reads never touches
 * the store. It is fed by the booking services after each commit; every seat carries its version,
 * so a late or repeated update can never roll a seat back.
 */
export class SeatMapCache {
  private readonly shows = new Map<string, ShowSeats>();
  private readonly loading = new Map<string, Promise<ShowSeats | null>>();
  private readonly pending = new Map<string, Seat[]>();
  /** Show id -> until when it is known not to exist. */
  private readonly missing = new Map<string, number>();
  /** Distinguishes ETags across restarts, when versions start again from zero. */
  private readonly epoch: string;

  constructor(private readonly store: BookingStore, private readonly now: () => number, epochSeed: string) {
    this.epoch = createHash('sha256').update(epochSeed).digest('hex').slice(0, 8);
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

  /** Seats changed by a committed unit of work. */
  apply(seats: readonly Seat[]): void {
    for (const seat of seats) {
      const entry = this.shows.get(seat.showId);
      if (entry !== undefined) this.applyOne(entry, seat);
      else if (this.loading.has(seat.showId)) this.bufferWhileLoading(seat);
    }
  }

  async snapshot(showId: string): Promise<Snapshot | null> {
    const entry = await this.get(showId);
    if (entry === null) return null;
    if (entry.snapshot?.version !== entry.version) entry.snapshot = this.render(entry);
    return entry.snapshot;
  }

  /** False as soon as one seat is known taken: lets a doomed hold fail without touching the store. */
  allAvailable(entry: ShowSeats, seatIds: readonly string[]): boolean {
    return seatIds.every((id) => {
      const i = entry.index.get(id);
      return i === undefined || entry.statuses[i] === 0;
    });
  }

  positions(entry: ShowSeats): SeatPosition[] {
    return entry.positions.map((p, i) => ({ ...p, available: entry.statuses[i] === 0 }));
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
    const loaded = await this.store.read(async (r) => {
      const show = await r.shows.get(showId);
      return show === null ? null : { show, seats: await r.seats.listByShow(showId) };
    });
    const buffered = this.pending.get(showId) ?? [];
    this.pending.delete(showId);
    if (loaded === null) {
      this.rememberMissing(showId);
      return null;
    }
    const entry = buildEntry(loaded.show, loaded.seats);
    for (const seat of buffered) this.applyOne(entry, seat);
    this.shows.set(showId, entry);
    return entry;
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

  private bufferWhileLoading(seat: Seat): void {
    this.pending.get(seat.showId)?.push(seat);
  }

  private applyOne(entry: ShowSeats, seat: Seat): void {
    const i = entry.index.get(seat.seatId);
    if (i === undefined || (entry.versions[i] as number) >= seat.version) return;
    entry.versions[i] = seat.version;
    entry.statuses[i] = statusIndex.get(seat.status) ?? 0;
    entry.version++;
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
    const head = `{"showId":${JSON.stringify(entry.show.showId)},"version":${version}`;
    return {
      version,
      etag: `"${this.epoch}-${version}"`,
      json: `${head},"seats":[${parts.join(',')}]}`,
      compactJson: `${head},"legend":{"A":"AVAILABLE","H":"HELD","S":"SOLD","R":"REFUND_PENDING"},"seatIds":${JSON.stringify(entry.seatIds)},"statuses":"${compact}"}`,
    };
  }
}

function buildEntry(show: Show, seats: readonly Seat[]): ShowSeats {
  const statuses = new Uint8Array(seats.length);
  const versions = new Uint32Array(seats.length);
  seats.forEach((s, i) => {
    statuses[i] = statusIndex.get(s.status) ?? 0;
    versions[i] = s.version;
  });
  return {
    show,
    seatIds: seats.map((s) => s.seatId),
    positions: seats.map(({ seatId, section, row, number }) => ({ seatId, section, row, number })),
    index: new Map(seats.map((s, i) => [s.seatId, i])),
    statuses,
    versions,
    jsonPrefixes: seats.map(
      (s) =>
        `{"seatId":${JSON.stringify(s.seatId)},"section":${JSON.stringify(s.section)},"row":${s.row},"number":${s.number},"priceCents":${s.priceCents},"status":"`,
    ),
    version: 0,
    snapshot: null,
  };
}
