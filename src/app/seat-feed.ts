import { liveLimits } from '../domain/live-limits.js';
import { SalePulse } from './sale-pulse.js';

/** One letter per seat status, as in the compact seat map. */
export type StatusLetter = 'A' | 'H' | 'S' | 'R';
const letters: readonly StatusLetter[] = ['A', 'H', 'S', 'R'];
const heldCode = 1;
/** A log slot that moved a version without a seat (counted stock changed): skipped when replayed. */
const noSeat = 0xffffffff;
/** The smallest change log of a show (a few kilobytes), so a small show still resumes after a burst. */
const changeLogMin = 1024;

/** The seats that changed between two versions of a show's map, each with its latest status. */
export interface ChangeBatch {
  /** The version the client must already have. */
  readonly from: number;
  /** The version the batch leads to. */
  readonly to: number;
  readonly changes: readonly (readonly [seatId: string, status: StatusLetter])[];
}

/**
 * A bounded ring of one show's seat changes: version v sits in slot v mod capacity, so the ring
 * always holds the last `capacity` versions and resuming from anything older is a plain "reload".
 */
class ShowLog {
  private readonly seatAt: Uint32Array;
  private readonly statusAt: Uint8Array;
  /** Versions above this one are in the ring. */
  private floor: number;
  version: number;

  constructor(private readonly seatIdAt: (seatIndex: number) => string, version: number, private readonly capacity: number) {
    this.seatAt = new Uint32Array(capacity);
    this.statusAt = new Uint8Array(capacity);
    this.floor = version;
    this.version = version;
  }

  record(seatIndex: number, statusCode: number, version: number): void {
    // Versions only go up (they are sums of stored versions), but by more than one when an item
    // moved by several at once (a seat whose intermediate changes this process never saw): the
    // versions skipped changed nothing else, so their slots say "no seat".
    if (version <= this.version) return;
    for (let v = Math.max(this.version + 1, version - this.capacity + 1); v < version; v++) this.seatAt[v % this.capacity] = noSeat;
    const slot = version % this.capacity;
    this.seatAt[slot] = seatIndex;
    this.statusAt[slot] = statusCode;
    this.version = version;
    if (version - this.floor > this.capacity) this.floor = version - this.capacity;
  }

  since(from: number): ChangeBatch | 'RELOAD' {
    if (from > this.version || from < this.floor) return 'RELOAD';
    const latest = new Map<number, number>();
    for (let v = from + 1; v <= this.version; v++) {
      const slot = v % this.capacity;
      if (this.seatAt[slot] === noSeat) continue;
      latest.set(this.seatAt[slot] as number, this.statusAt[slot] as number);
    }
    const changes = [...latest].map(([seat, code]) => [this.seatIdAt(seat), letters[code] as StatusLetter] as const);
    return { from, to: this.version, changes };
  }
}

/** Seats put on hold per second over a sliding window, for the organizer's live sale page. */
class HoldRate {
  private readonly perSecond = new Uint32Array(liveLimits.holdRateWindowSeconds);
  private lastSecond = 0;

  add(nowMs: number, count: number): void {
    this.advance(Math.floor(nowMs / 1000));
    const slot = this.lastSecond % this.perSecond.length;
    this.perSecond[slot] = (this.perSecond[slot] ?? 0) + count;
  }

  perMinute(nowMs: number): number {
    this.advance(Math.floor(nowMs / 1000));
    const total = this.perSecond.reduce((sum, n) => sum + n, 0);
    return Math.round((total * 60) / this.perSecond.length);
  }

  private advance(second: number): void {
    if (second <= this.lastSecond) return;
    const steps = Math.min(second - this.lastSecond, this.perSecond.length);
    for (let i = 1; i <= steps; i++) this.perSecond[(this.lastSecond + i) % this.perSecond.length] = 0;
    this.lastSecond = second;
  }
}

/**
 * The seat-change feed: the seat-map read model reports every change it applies, in commit order.
 * Each loaded show has a change log (a ring sized to the show, at most liveLimits.changeLogSeatsMax
 * versions), so `?since=` reads and live streams (which subscribe per show) answer from memory;
 * listeners hear "show X changed" and pull what they need, so batching and slow clients are the
 * subscriber's business, never the booking path's.
 */
export class SeatFeed {
  private readonly logs = new Map<string, ShowLog>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly holdRates = new Map<string, HoldRate>();
  /** Holds and refusals by code per show over the last minutes, for the organizer's live chart. */
  readonly pulse = new SalePulse();

  constructor(private readonly now: () => number, private readonly logCapacityMax: number = liveLimits.changeLogSeatsMax) {}

  /** The read model loaded a show (`seats` of them) at `version`: its log starts there. */
  open(showId: string, seats: number, seatIdAt: (seatIndex: number) => string, version: number): void {
    const capacity = Math.min(this.logCapacityMax, Math.max(changeLogMin, 2 * seats));
    this.logs.set(showId, new ShowLog(seatIdAt, version, capacity));
  }

  /** The read model dropped a show: resuming from before now means reloading. */
  close(showId: string): void {
    this.logs.delete(showId);
    this.holdRates.delete(showId);
  }

  /** Called by the read model for each seat change it applies. */
  record(showId: string, seatIndex: number, statusCode: number, version: number): void {
    this.logs.get(showId)?.record(seatIndex, statusCode, version);
    if (statusCode === heldCode) {
      let rate = this.holdRates.get(showId);
      if (rate === undefined) this.holdRates.set(showId, (rate = new HoldRate()));
      rate.add(this.now(), 1);
    }
  }

  /** Called by the read model when counted stock moved the map's version (no seat changed). */
  recordStock(showId: string, version: number): void {
    this.logs.get(showId)?.record(noSeat, 0, version);
  }

  /** Called by the read model once a committed unit of work is applied. */
  changed(showId: string): void {
    for (const listener of this.listeners.get(showId) ?? []) listener();
  }

  /** Calls `listener` after each committed change of the show; returns the way to stop. */
  watch(showId: string, listener: () => void): () => void {
    let set = this.listeners.get(showId);
    if (set === undefined) this.listeners.set(showId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(showId);
    };
  }

  /** What changed after version `from`, coalesced per seat, or RELOAD when that is no longer known. */
  since(showId: string, from: number): ChangeBatch | 'RELOAD' {
    return this.logs.get(showId)?.since(from) ?? 'RELOAD';
  }

  version(showId: string): number | null {
    return this.logs.get(showId)?.version ?? null;
  }

  holdsPerMinute(showId: string): number {
    return this.holdRates.get(showId)?.perMinute(this.now()) ?? 0;
  }
}
