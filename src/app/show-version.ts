/**
 * A show's version and state digest, derived from stored state only, so every process that has
 * applied the same changes answers the same version and ETag, and a reload after eviction or a
 * restart answers what it answered before for the same state (issue 22 item 6).
 *
 * The state is a set of versioned items, each with a version stored beside it that goes up by one
 * per change: every seat (seats.version), every stock bucket of a counted section
 * (stock_buckets.version; SQLite: sections.stock_version, one bucket) and the show's details
 * (shows.version). An item's content is a function of its stored version (the store's history),
 * so the pairs (item, version) are the state:
 * - version = the sum of the items' versions: every change raises it, so it orders a process's
 *   changes (the live log, `?since=`), and it is the same on every process with the same state;
 * - digest = the sum modulo 2^32, in two lanes, of a hash of each (item, version): two different
 *   states with the same version (possible only while processes are catching up, each having
 *   applied different changes) have different ETags but for a 2^-64 chance.
 * Both move in O(1) per change (subtract the item's old term, add its new one); an item at
 * version 0 (never changed) adds nothing, so a fresh show costs nothing to start.
 */
export class ShowVersion {
  version = 0;
  private lo = 0;
  private hi = 0;

  /** Item `key` went from version `from` to `to`. */
  move(key: number, from: number, to: number): void {
    if (from === to) return;
    this.version += to - from;
    if (from > 0) {
      this.lo = (this.lo - term(key, from, seedLo)) >>> 0;
      this.hi = (this.hi - term(key, from, seedHi)) >>> 0;
    }
    if (to > 0) {
      this.lo = (this.lo + term(key, to, seedLo)) >>> 0;
      this.hi = (this.hi + term(key, to, seedHi)) >>> 0;
    }
  }

  /** The digest as 16 hex digits. */
  get digest(): string {
    return this.hi.toString(16).padStart(8, '0') + this.lo.toString(16).padStart(8, '0');
  }
}

/** Keys of the items of one show: seats by layout index, then buckets, then the show's details. */
export const versionKeys = {
  seat: (index: number): number => index,
  /** `section` is the section's position in the seat map; a section has at most bucketsMax buckets. */
  bucket: (section: number, bucket: number): number => bucketBase + section * bucketsMax + bucket,
  show: 0x7fffffff,
} as const;

/** Seat indexes stay below this (limits keep a show far smaller). */
const bucketBase = 0x40000000;
const bucketsMax = 4096;
const seedLo = 0x9e3779b9;
const seedHi = 0x85ebca6b;

/** A 32-bit hash of (key, version) (murmur3's finalizer over both), the same on every process. */
function term(key: number, version: number, seed: number): number {
  let h = Math.imul((key ^ seed) >>> 0, 0xcc9e2d51);
  h = Math.imul(h ^ (h >>> 15), 0x1b873593) ^ version;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
