import type { LeftAdmission, OutboxEvent, Store } from '../ports/engine/index.js';
import type { WaitingRoom } from '../domain/index.js';

/** The most rooms a process keeps on (rooms are per activity; far more than run at once). */
export const roomsCachedMax = 10_000;

/** The most given-up admissions a process remembers; each is forgotten anyway once its token has expired. */
export const leftAdmissionsMax = 100_000;

const leftKey = (userId: string, activityId: string, admittedUntil: number): string => `${activityId}\u0000${userId}\u0000${admittedUntil}`;

/**
 * Which activities have their waiting room on, in this process's memory: every buying route asks
 * it per request, so it never reads the database. Filled at start (listEnabledWaitingRooms), kept
 * by this process's own changes as they commit, and by other processes' through the change feed's
 * 'waiting-room.changed' rows. The newest version of a room wins, whatever order they arrive in.
 */
export class WaitingRoomCache {
  private readonly rooms = new Map<string, WaitingRoom>();
  /**
   * Admissions given up by leaving the line (issue 33), until their tokens would have expired: a
   * token's claims (user, activity, end) name its admission, so the admission check refuses a
   * left one from memory. Fed like the rooms: this process's own leave at once, others' through
   * the change feed's 'queue.left' rows. A rejoined and readmitted buyer has a new end: a new token.
   */
  private readonly left = new Map<string, number>();

  get(activityId: string): WaitingRoom | null {
    return this.rooms.get(activityId) ?? null;
  }

  /** The rooms that are on now. */
  enabled(): WaitingRoom[] {
    return [...this.rooms.values()].filter((r) => r.enabled);
  }

  /** Whether any room is on (O(1) in the common case of none: the buying routes ask it first). */
  anyOn(): boolean {
    if (this.rooms.size === 0) return false;
    for (const r of this.rooms.values()) if (r.enabled) return true;
    return false;
  }

  apply(room: WaitingRoom): void {
    const held = this.rooms.get(room.activityId);
    if (held !== undefined && held.version >= room.version) return;
    // Off rooms are kept too (bounded below): their version makes an older "on" arriving late be ignored.
    this.rooms.set(room.activityId, room);
    if (this.rooms.size > roomsCachedMax) {
      const off = [...this.rooms.values()].find((r) => !r.enabled);
      if (off !== undefined) this.rooms.delete(off.activityId);
    }
  }

  /** An admission given up: its token stops at once (until its own end, after which it is refused anyway). */
  leave(left: LeftAdmission, now: number): void {
    if (left.admittedUntil <= now) return;
    this.left.set(leftKey(left.userId, left.activityId, left.admittedUntil), left.admittedUntil);
    if (this.left.size <= leftAdmissionsMax) return;
    for (const [key, until] of this.left) if (until <= now) this.left.delete(key);
    // Still full of live ones: the oldest entries go first (a bound on memory, never on correctness of the rest).
    for (const key of this.left.keys()) {
      if (this.left.size <= leftAdmissionsMax) break;
      this.left.delete(key);
    }
  }

  /** Whether the admission a token names was given up by leaving the line. */
  hasLeft(claims: { readonly userId: string; readonly activityId: string; readonly expiresAt: number }): boolean {
    return this.left.size > 0 && this.left.has(leftKey(claims.userId, claims.activityId, claims.expiresAt));
  }

  /** Another process's change, from the outbox feed. */
  applyEvent(event: OutboxEvent): void {
    if (event.type === 'queue.left') {
      const d = event.data;
      if (typeof d.userId === 'string' && typeof d.activityId === 'string' && typeof d.admittedUntil === 'number') {
        this.leave({ userId: d.userId, activityId: d.activityId, admittedUntil: d.admittedUntil }, event.createdAt);
      }
      return;
    }
    if (event.type !== 'waiting-room.changed') return;
    const d = event.data as Partial<Record<keyof WaitingRoom, unknown>>;
    if (typeof d.activityId !== 'string' || typeof d.enabled !== 'boolean' || typeof d.admitPerMinute !== 'number'
      || typeof d.admissionSeconds !== 'number' || typeof d.version !== 'number') return;
    this.apply({
      activityId: d.activityId, enabled: d.enabled, admitPerMinute: d.admitPerMinute, admissionSeconds: d.admissionSeconds, version: d.version,
      updatedAt: typeof d.updatedAt === 'number' ? d.updatedAt : event.createdAt, admitClock: 0, admitCarry: 0,
    });
  }

  async load(store: Pick<Store, 'listEnabledWaitingRooms'>): Promise<number> {
    const rooms = await store.listEnabledWaitingRooms(roomsCachedMax);
    rooms.forEach((r) => this.apply(r));
    return rooms.length;
  }
}
