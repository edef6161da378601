import type { Database as Db } from 'better-sqlite3';
import type { QueueEntry, QueueEntryState, WaitingRoom } from '../../domain/index.js';
import type { AdmitQueueOutcome, JoinQueueOutcome, MoveQueueEntryOutcome, WaitingRoomStore } from '../../ports/engine/index.js';
import { queueLeft, waitingRoomChanged } from '../shared/outbox-drafts.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import { isUniqueViolation } from './shared.js';

interface RoomRow { activity_id: string; enabled: 0 | 1; admit_per_minute: number; admission_seconds: number; version: number; updated_at: number; admit_clock: number; admit_carry: number }
interface EntryRow {
  queue_id: string; activity_id: string; user_id: string; state: QueueEntryState; band: 0 | 1; draw: number;
  joined_at: number; admitted_at: number | null; admitted_until: number | null;
}

const toRoom = (r: RoomRow): WaitingRoom => ({
  activityId: r.activity_id, enabled: r.enabled === 1, admitPerMinute: r.admit_per_minute, admissionSeconds: r.admission_seconds, version: r.version, updatedAt: r.updated_at,
  admitClock: r.admit_clock, admitCarry: r.admit_carry,
});
export const toEntry = (r: EntryRow): QueueEntry => ({
  queueId: r.queue_id, activityId: r.activity_id, userId: r.user_id, state: r.state, band: r.band, draw: r.draw,
  joinedAt: r.joined_at, admittedAt: r.admitted_at, admittedUntil: r.admitted_until,
});

/**
 * Waiting rooms on SQLite. Writes are units of the group commit; the unique (activity, user)
 * index is the one-place-per-user guard, the WAITING condition of every admission the
 * no-double-admission guard.
 */
export function sqliteWaitingRooms(db: Db, gc: GroupCommit, ob: OutboxWriter): WaitingRoomStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    room: db.prepare('SELECT * FROM waiting_rooms WHERE activity_id = ?'),
    enabled: db.prepare('SELECT * FROM waiting_rooms WHERE enabled = 1 ORDER BY activity_id LIMIT ?'),
    upsert: db.prepare(`INSERT INTO waiting_rooms (activity_id, enabled, admit_per_minute, admission_seconds, version, updated_at)
      VALUES (@activityId, @enabled, @rate, @seconds, 1, @now)
      ON CONFLICT (activity_id) DO UPDATE SET enabled = excluded.enabled, admit_per_minute = excluded.admit_per_minute,
        admission_seconds = excluded.admission_seconds, version = version + 1, updated_at = excluded.updated_at
      RETURNING *`),
    entry: db.prepare('SELECT * FROM queue_entries WHERE queue_id = ?'),
    entryOf: db.prepare('SELECT * FROM queue_entries WHERE activity_id = ? AND user_id = ?'),
    insert: db.prepare(`INSERT INTO queue_entries (queue_id, activity_id, user_id, state, band, draw, joined_at, updated_at)
      VALUES (@queueId, @activityId, @userId, 'WAITING', @band, @draw, @now, @now) RETURNING *`),
    ahead: db.prepare(`SELECT count(*) AS n FROM queue_entries WHERE activity_id = @activityId AND state = 'WAITING'
      AND (band, draw, joined_at, queue_id) < (@band, @draw, @joinedAt, @queueId)`),
    move: db.prepare(`UPDATE queue_entries SET state = @to, updated_at = @now,
        band = coalesce(@band, band), draw = coalesce(@draw, draw), joined_at = CASE WHEN @to = 'WAITING' THEN @now ELSE joined_at END,
        admitted_at = CASE WHEN @to = 'WAITING' THEN NULL ELSE admitted_at END,
        admitted_until = CASE WHEN @to IN ('WAITING', 'EXPIRED', 'LEFT', 'BLOCKED') THEN NULL ELSE admitted_until END
      WHERE queue_id = @queueId AND state = @from RETURNING *`),
    clock: db.prepare('UPDATE waiting_rooms SET admit_clock = @now, admit_carry = @carry WHERE activity_id = @activityId AND admit_clock = @expected'),
    admit: db.prepare(`UPDATE queue_entries SET state = 'ADMITTED', admitted_at = @now, admitted_until = @until, updated_at = @now
      WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE activity_id = @activityId AND state = 'WAITING'
        ORDER BY band, draw, joined_at, queue_id LIMIT @limit) AND state = 'WAITING'`),
    expire: db.prepare(`UPDATE queue_entries SET state = 'EXPIRED', admitted_until = NULL, updated_at = @now
      WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE state = 'ADMITTED' AND admitted_until <= @now LIMIT @limit) AND state = 'ADMITTED'`),
    sellOut: db.prepare(`UPDATE queue_entries SET state = 'SOLD_OUT', updated_at = @now
      WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE activity_id = @activityId AND state = 'WAITING' LIMIT @limit) AND state = 'WAITING'`),
    block: db.prepare(`UPDATE queue_entries SET state = 'BLOCKED', admitted_until = NULL, updated_at = @now
      WHERE user_id = @userId AND state IN ('WAITING', 'ADMITTED')`),
    stats: db.prepare(`SELECT
        (SELECT count(*) FROM queue_entries WHERE activity_id = @activityId AND state = 'WAITING') AS waiting,
        (SELECT count(*) FROM queue_entries WHERE activity_id = @activityId AND state = 'ADMITTED') AS admitted,
        (SELECT count(*) FROM queue_entries WHERE activity_id = @activityId AND admitted_at > @since) AS recent`),
  };
  const positionOf = (e: EntryRow): number =>
    e.state !== 'WAITING' ? 0 : 1 + (q.ahead.get({ activityId: e.activity_id, band: e.band, draw: e.draw, joinedAt: e.joined_at, queueId: e.queue_id }) as { n: number }).n;

  return {
    setWaitingRoom: (input) =>
      gc.write('setWaitingRoom', (): WaitingRoom => {
        const room = toRoom(q.upsert.get({
          activityId: input.activityId, enabled: input.settings.enabled ? 1 : 0, rate: input.settings.admitPerMinute, seconds: input.settings.admissionSeconds, now: input.now,
        }) as RoomRow);
        ob.append(input.now, [waitingRoomChanged(room)]);
        auditLog.append(input.audit);
        return room;
      }),

    getWaitingRoom: async (activityId) => {
      const row = q.room.get(activityId) as RoomRow | undefined;
      return row === undefined ? null : toRoom(row);
    },

    listEnabledWaitingRooms: async (limit) => (q.enabled.all(limit) as RoomRow[]).map(toRoom),

    joinQueue: (input) =>
      gc.write('joinQueue', (): JoinQueueOutcome => {
        try {
          return { created: true, entry: toEntry(q.insert.get({ queueId: input.queueId, activityId: input.activityId, userId: input.userId, band: input.band, draw: input.draw, now: input.now }) as EntryRow) };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          // The user's place already exists (the unique index): that one is the answer.
          const row = q.entryOf.get(input.activityId, input.userId) as EntryRow | undefined;
          if (row === undefined) throw error;
          return { created: false, entry: toEntry(row) };
        }
      }),

    getQueueEntry: async (queueId) => {
      const row = q.entry.get(queueId) as EntryRow | undefined;
      return row === undefined ? null : { entry: toEntry(row), position: positionOf(row) };
    },

    moveQueueEntry: (input) =>
      gc.write('moveQueueEntry', (): MoveQueueEntryOutcome => {
        const row = q.move.get({ queueId: input.queueId, from: input.from, to: input.to, now: input.now, band: input.band ?? null, draw: input.draw ?? null }) as EntryRow | undefined;
        if (row !== undefined && input.leftAdmission !== undefined) ob.append(input.now, [queueLeft(input.leftAdmission)]);
        return row === undefined ? { ok: false, stale: 'queue-entry' } : { ok: true, entry: toEntry(row) };
      }),

    admitQueue: (input) =>
      gc.write('admitQueue', (): AdmitQueueOutcome => {
        if (q.clock.run({ activityId: input.activityId, now: input.now, carry: input.carry, expected: input.expectedClock }).changes !== 1) return { ok: false, stale: 'waiting-room' };
        const admitted = input.limit <= 0 ? 0 : q.admit.run({ activityId: input.activityId, limit: input.limit, now: input.now, until: input.now + input.admissionMs }).changes;
        return { ok: true, admitted };
      }),

    expireAdmissions: (input) => gc.write('expireAdmissions', (): number => q.expire.run({ now: input.now, limit: input.limit }).changes),

    sellOutQueue: (input) => gc.write('sellOutQueue', (): number => q.sellOut.run({ activityId: input.activityId, now: input.now, limit: input.limit }).changes),

    blockQueuePlaces: (input) => gc.write('blockQueuePlaces', (): number => q.block.run({ userId: input.userId, now: input.now }).changes),

    queueStats: async (input) => {
      const r = q.stats.get({ activityId: input.activityId, since: input.now - 60_000 }) as { waiting: number; admitted: number; recent: number };
      return { waiting: r.waiting, admitted: r.admitted, admittedLastMinute: r.recent };
    },
  };
}
