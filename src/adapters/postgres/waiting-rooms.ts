import type { QueueEntry, QueueEntryState, WaitingRoom } from '../../domain/index.js';
import type { AdmitQueueOutcome, JoinQueueOutcome, MoveQueueEntryOutcome, WaitingRoomStore } from '../../ports/engine/index.js';
import { queueLeft, waitingRoomChanged } from '../shared/outbox-drafts.js';
import { unexpected, type PgLanes } from './db.js';
import { appendAuditEntry } from './change-log.js';
import { appendOutbox } from './outbox.js';

interface RoomRow { activity_id: string; enabled: boolean; admit_per_minute: number; admission_seconds: number; version: number; updated_at: string; admit_clock: string; admit_carry: number }
interface EntryRow {
  queue_id: string; activity_id: string; user_id: string; state: QueueEntryState; band: number; draw: string;
  joined_at: string; admitted_at: string | null; admitted_until: string | null;
}

const toRoom = (r: RoomRow): WaitingRoom => ({
  activityId: r.activity_id, enabled: r.enabled, admitPerMinute: r.admit_per_minute, admissionSeconds: r.admission_seconds, version: r.version, updatedAt: Number(r.updated_at),
  admitClock: Number(r.admit_clock), admitCarry: r.admit_carry,
});
const num = (v: string | null): number | null => (v === null ? null : Number(v));
const toEntry = (r: EntryRow): QueueEntry => ({
  queueId: r.queue_id, activityId: r.activity_id, userId: r.user_id, state: r.state, band: r.band === 0 ? 0 : 1, draw: Number(r.draw),
  joinedAt: Number(r.joined_at), admittedAt: num(r.admitted_at), admittedUntil: num(r.admitted_until),
});

/** Admission order, as the line index has it (queue ids compared bytewise, as SQLite does). */
const lineOrder = 'band, draw, joined_at, queue_id COLLATE "C"';

/**
 * Waiting rooms on PostgreSQL. Joins are a rush (the rush lane); the admitter's and the
 * organizer's writes go on the checkout lane. The unique (activity, user) index is the
 * one-place-per-user guard; admissions take their rows FOR UPDATE SKIP LOCKED and stay
 * conditional on WAITING, so two admitters never admit one place twice.
 */
export function pgWaitingRooms(lanes: PgLanes, origin: string): WaitingRoomStore {
  const rush = lanes.rush;
  const db = lanes.checkout;
  return {
    async setWaitingRoom(input) {
      const result = await db.tx('setWaitingRoom', async (c) => {
        const { rows } = await c.query<RoomRow>(
          `INSERT INTO waiting_rooms (activity_id, enabled, admit_per_minute, admission_seconds, version, updated_at)
           VALUES ($1, $2, $3, $4, 1, $5)
           ON CONFLICT (activity_id) DO UPDATE SET enabled = excluded.enabled, admit_per_minute = excluded.admit_per_minute,
             admission_seconds = excluded.admission_seconds, version = waiting_rooms.version + 1, updated_at = excluded.updated_at
           RETURNING *`,
          [input.activityId, input.settings.enabled, input.settings.admitPerMinute, input.settings.admissionSeconds, input.now]);
        const room = toRoom(rows[0] as RoomRow);
        await appendOutbox(c, origin, input.now, [waitingRoomChanged(room)]);
        await appendAuditEntry(c, input.audit);
        return room;
      });
      return result.ok ? result.value : unexpected('setWaitingRoom', result);
    },

    async getWaitingRoom(activityId) {
      const { rows } = await db.query<RoomRow>('SELECT * FROM waiting_rooms WHERE activity_id = $1', [activityId]);
      return rows[0] === undefined ? null : toRoom(rows[0]);
    },

    async listEnabledWaitingRooms(limit) {
      const { rows } = await db.query<RoomRow>('SELECT * FROM waiting_rooms WHERE enabled ORDER BY activity_id COLLATE "C" LIMIT $1', [limit]);
      return rows.map(toRoom);
    },

    async joinQueue(input) {
      // One statement: insert unless the user has a place; ON CONFLICT waits for a concurrent
      // inserter of the same (activity, user) and then does nothing, and the read that follows sees its row.
      const result = await rush.tx('joinQueue', async (c): Promise<JoinQueueOutcome> => {
        const inserted = await c.query<EntryRow>(
          `INSERT INTO queue_entries (queue_id, activity_id, user_id, state, band, draw, joined_at, updated_at)
           VALUES ($1, $2, $3, 'WAITING', $4, $5, $6, $6) ON CONFLICT (activity_id, user_id) DO NOTHING RETURNING *`,
          [input.queueId, input.activityId, input.userId, input.band, input.draw, input.now]);
        if (inserted.rows[0] !== undefined) return { created: true, entry: toEntry(inserted.rows[0]) };
        const { rows } = await c.query<EntryRow>('SELECT * FROM queue_entries WHERE activity_id = $1 AND user_id = $2', [input.activityId, input.userId]);
        return { created: false, entry: toEntry(rows[0] as EntryRow) };
      });
      return result.ok ? result.value : unexpected('joinQueue', result);
    },

    async getQueueEntry(queueId) {
      const { rows } = await rush.query<EntryRow & { ahead: string | null }>(
        `SELECT e.*, CASE WHEN e.state = 'WAITING' THEN (SELECT count(*) FROM queue_entries a WHERE a.activity_id = e.activity_id AND a.state = 'WAITING'
           AND (a.band, a.draw, a.joined_at, a.queue_id COLLATE "C") < (e.band, e.draw, e.joined_at, e.queue_id COLLATE "C")) END AS ahead
         FROM queue_entries e WHERE e.queue_id = $1`, [queueId]);
      const row = rows[0];
      if (row === undefined) return null;
      return { entry: toEntry(row), position: row.ahead === null ? 0 : 1 + Number(row.ahead) };
    },

    async moveQueueEntry(input) {
      const result = await db.tx('moveQueueEntry', async (c): Promise<MoveQueueEntryOutcome> => {
        const { rows } = await c.query<EntryRow>(
          `UPDATE queue_entries SET state = $3, updated_at = $4,
             band = coalesce($5, band), draw = coalesce($6, draw), joined_at = CASE WHEN $3 = 'WAITING' THEN $4 ELSE joined_at END,
             admitted_at = CASE WHEN $3 = 'WAITING' THEN NULL ELSE admitted_at END,
             admitted_until = CASE WHEN $3 IN ('WAITING', 'EXPIRED', 'LEFT', 'BLOCKED') THEN NULL ELSE admitted_until END
           WHERE queue_id = $1 AND state = $2 RETURNING *`,
          [input.queueId, input.from, input.to, input.now, input.band ?? null, input.draw ?? null]);
        if (rows[0] !== undefined && input.leftAdmission !== undefined) await appendOutbox(c, origin, input.now, [queueLeft(input.leftAdmission)]);
        return rows[0] === undefined ? { ok: false, stale: 'queue-entry' } : { ok: true, entry: toEntry(rows[0]) };
      });
      return result.ok ? result.value : unexpected('moveQueueEntry', result);
    },

    async admitQueue(input) {
      const result = await db.tx('admitQueue', async (c): Promise<AdmitQueueOutcome> => {
        const clock = await c.query('UPDATE waiting_rooms SET admit_clock = $2, admit_carry = $3 WHERE activity_id = $1 AND admit_clock = $4',
          [input.activityId, input.now, input.carry, input.expectedClock]);
        if (clock.rowCount !== 1) return { ok: false, stale: 'waiting-room' };
        if (input.limit <= 0) return { ok: true, admitted: 0 };
        const admitted = await c.query(
          `UPDATE queue_entries SET state = 'ADMITTED', admitted_at = $3, admitted_until = $4, updated_at = $3
           WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE activity_id = $1 AND state = 'WAITING'
             ORDER BY ${lineOrder} LIMIT $2 FOR UPDATE SKIP LOCKED) AND state = 'WAITING'`,
          [input.activityId, input.limit, input.now, input.now + input.admissionMs]);
        return { ok: true, admitted: admitted.rowCount ?? 0 };
      });
      return result.ok ? result.value : unexpected('admitQueue', result);
    },

    async expireAdmissions(input) {
      const result = await db.statement('expireAdmissions', (c) => c.query(
        `UPDATE queue_entries SET state = 'EXPIRED', admitted_until = NULL, updated_at = $1
         WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE state = 'ADMITTED' AND admitted_until <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) AND state = 'ADMITTED'`,
        [input.now, input.limit]));
      return result.ok ? (result.value.rowCount ?? 0) : unexpected('expireAdmissions', result);
    },

    async sellOutQueue(input) {
      const result = await db.statement('sellOutQueue', (c) => c.query(
        `UPDATE queue_entries SET state = 'SOLD_OUT', updated_at = $2
         WHERE queue_id IN (SELECT queue_id FROM queue_entries WHERE activity_id = $1 AND state = 'WAITING' LIMIT $3 FOR UPDATE SKIP LOCKED) AND state = 'WAITING'`,
        [input.activityId, input.now, input.limit]));
      return result.ok ? (result.value.rowCount ?? 0) : unexpected('sellOutQueue', result);
    },

    async blockQueuePlaces(input) {
      const result = await db.statement('blockQueuePlaces', (c) => c.query(
        `UPDATE queue_entries SET state = 'BLOCKED', admitted_until = NULL, updated_at = $2 WHERE user_id = $1 AND state IN ('WAITING', 'ADMITTED')`,
        [input.userId, input.now]));
      return result.ok ? (result.value.rowCount ?? 0) : unexpected('blockQueuePlaces', result);
    },

    async queueStats(input) {
      const { rows } = await db.query<{ waiting: string; admitted: string; recent: string }>(
        `SELECT
           (SELECT count(*) FROM queue_entries WHERE activity_id = $1 AND state = 'WAITING') AS waiting,
           (SELECT count(*) FROM queue_entries WHERE activity_id = $1 AND state = 'ADMITTED') AS admitted,
           (SELECT count(*) FROM queue_entries WHERE activity_id = $1 AND admitted_at > $2) AS recent`,
        [input.activityId, input.now - 60_000]);
      const r = rows[0] as { waiting: string; admitted: string; recent: string };
      return { waiting: Number(r.waiting), admitted: Number(r.admitted), admittedLastMinute: Number(r.recent) };
    },
  };
}
