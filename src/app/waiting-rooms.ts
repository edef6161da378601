import { auditDraft, type Actor } from './audit-trail.js';
import type { OutboxEvent, PlacedEntry, QueueStats } from '../ports/engine/index.js';
import {
  admissionsDue, checkWaitingRoomSettings, estimatedWaitSeconds, limits, placeInLine, queueEntryMachine,
  type QueueEntry, type QueueEntryState, type WaitingRoom, type WaitingRoomSettings,
} from '../domain/index.js';
import type { AppContext } from './context.js';
import { passBuyerGate, showActivity, type GateActivity } from './buyer-gate.js';
import { AppError, unwrap } from './errors.js';
import { iso } from './views.js';

export { WaitingRoomCache } from './waiting-room-cache.js';

export interface WaitingRoomView {
  activityId: string;
  enabled: boolean;
  admitPerMinute: number;
  admissionSeconds: number;
  version: number;
  updatedAt: string;
  /** The live line: its length, who is in now, and the admissions of the last minute. */
  queueLength: number;
  admittedNow: number;
  admittedLastMinute: number;
}

const roomView = (room: WaitingRoom, stats: QueueStats): WaitingRoomView => ({
  activityId: room.activityId, enabled: room.enabled, admitPerMinute: room.admitPerMinute, admissionSeconds: room.admissionSeconds,
  version: room.version, updatedAt: iso(room.updatedAt),
  queueLength: stats.waiting, admittedNow: stats.admitted, admittedLastMinute: stats.admittedLastMinute,
});

/** When the activity's sale opens, or null when there is no such activity (shows and campaigns are shows; code pools apart). */
async function saleStartOf(ctx: AppContext, activityId: string): Promise<number | null> {
  const show = await ctx.seatMaps.show(activityId);
  if (show !== null) return show.saleStartsAt;
  const pool = await ctx.store.getCodePool(activityId);
  return pool === null ? null : pool.saleStartsAt;
}

/** The activity as the buyer gate sees it: a show or campaign from the read model, or a code pool. */
async function gateActivityOf(ctx: AppContext, activityId: string): Promise<GateActivity | null> {
  const show = await ctx.seatMaps.show(activityId);
  if (show !== null) return showActivity(show);
  const pool = await ctx.store.getCodePool(activityId);
  return pool === null ? null : { activityId, saleStartsAt: pool.saleStartsAt, saleEndsAt: pool.saleEndsAt, cancelled: false, offline: null };
}

/**
 * Whether anything is left to sell, from the in-memory read model (seed 003: the right to order
 * is issued from the inventory cache): free seats or units in any section. An activity the read
 * model does not carry (a code pool) counts as not sold out: its own grab answers SOLD_OUT.
 */
export async function leftToSell(ctx: Pick<AppContext, 'seatMaps'>, activityId: string): Promise<{ left: boolean; final: boolean }> {
  const entry = await ctx.seatMaps.get(activityId);
  if (entry === null) return { left: true, final: false };
  const free = ctx.seatMaps.availability(entry).sections.reduce((n, s) => n + s.available, 0);
  // Final only when nothing can come back: no seat held, and no counted stock (whose holds the read model does not count).
  const counted = [...entry.sections.values()].some((s) => s.counted);
  return { left: free > 0, final: free === 0 && !counted && ctx.seatMaps.counts(entry).HELD === 0 };
}

export async function setWaitingRoom(ctx: AppContext, activityId: string, settings: WaitingRoomSettings, actor?: Actor): Promise<WaitingRoomView> {
  unwrap(checkWaitingRoomSettings(settings));
  if ((await saleStartOf(ctx, activityId)) === null) throw new AppError('ACTIVITY_NOT_FOUND', `no activity ${activityId}`);
  const now = ctx.clock.now();
  const before = actor === undefined ? null : await ctx.store.getWaitingRoom(activityId);
  const audit = auditDraft(ctx, actor, {
    action: 'waiting_room.set', entityType: 'waiting_room', entityId: activityId, showId: null,
    before: before === null ? null : { enabled: before.enabled, admitPerMinute: before.admitPerMinute, admissionSeconds: before.admissionSeconds },
    after: { enabled: settings.enabled, admitPerMinute: settings.admitPerMinute, admissionSeconds: settings.admissionSeconds },
  });
  const room = await ctx.store.setWaitingRoom({ activityId, settings, now, audit });
  ctx.rooms.apply(room);
  return roomView(room, await ctx.store.queueStats({ activityId, now }));
}

export async function getWaitingRoom(ctx: AppContext, activityId: string): Promise<WaitingRoomView> {
  const room = await ctx.store.getWaitingRoom(activityId);
  if (room === null) {
    if ((await saleStartOf(ctx, activityId)) === null) throw new AppError('ACTIVITY_NOT_FOUND', `no activity ${activityId}`);
    return roomView({ activityId, enabled: false, admitPerMinute: 0, admissionSeconds: 600, version: 0, updatedAt: 0, admitClock: 0, admitCarry: 0 }, { waiting: 0, admitted: 0, admittedLastMinute: 0 });
  }
  return roomView(room, await ctx.store.queueStats({ activityId, now: ctx.clock.now() }));
}

export interface QueueView {
  queueId: string;
  activityId: string;
  state: QueueEntryState;
  position: number;
  estimatedWaitSeconds: number | null;
  admissionToken?: string;
  admittedUntil?: string;
}

/** A place as its buyer sees it; ADMITTED carries the token, issued from the place (nothing stored). */
export function queueView(ctx: AppContext, placed: PlacedEntry, room: WaitingRoom | null): QueueView {
  const { entry } = placed;
  const now = ctx.clock.now();
  // The sweep moves a lapsed admission to EXPIRED; until it runs, the buyer already hears so.
  const state: QueueEntryState = entry.state === 'ADMITTED' && (entry.admittedUntil ?? 0) <= now ? 'EXPIRED' : entry.state;
  const view: QueueView = {
    queueId: entry.queueId, activityId: entry.activityId, state, position: placed.position,
    estimatedWaitSeconds: state === 'WAITING' ? estimatedWaitSeconds(placed.position, room?.admitPerMinute ?? 0) : 0,
  };
  if (state === 'ADMITTED' && entry.admittedUntil !== null) {
    view.admissionToken = ctx.admission.issue({ userId: entry.userId, activityId: entry.activityId, expiresAt: entry.admittedUntil });
    view.admittedUntil = iso(entry.admittedUntil);
  }
  return view;
}

const positionOfNew = async (ctx: AppContext, entry: QueueEntry): Promise<PlacedEntry> =>
  (await ctx.store.getQueueEntry(entry.queueId)) ?? { entry, position: 0 };

/**
 * A buyer joins the activity's line: a new place (created), or the one they have. A place they
 * left, or whose admission lapsed, goes to the back of the line again. Refused when the room is
 * off (there is no line) or, from the read model, when nothing is left to sell.
 */
export async function joinQueue(ctx: AppContext, userId: string, activityId: string): Promise<{ created: boolean; view: QueueView }> {
  const room = ctx.rooms.get(activityId);
  if (room === null || !room.enabled) throw new AppError('WAITING_ROOM_OFF', 'this activity has no waiting room on: buy directly');
  const activity = await gateActivityOf(ctx, activityId);
  if (activity === null) throw new AppError('ACTIVITY_NOT_FOUND', `no activity ${activityId}`);
  // The buyer gate before any place is given: no line after the sale ended (a line may form before it opens).
  passBuyerGate(ctx, { path: 'queue-join', userId, activity, admissionToken: undefined });
  const { saleStartsAt } = activity;
  if (!(await leftToSell(ctx, activityId)).left) throw new AppError('SOLD_OUT', 'nothing is left to sell: no place in line is given');
  const now = ctx.clock.now();
  const random = ctx.random ?? Math.random;
  const joined = await ctx.store.joinQueue({ queueId: ctx.ids.newId('queue'), activityId, userId, ...placeInLine(now, saleStartsAt, random), now });
  let entry = joined.entry;
  let created = joined.created;
  for (let attempt = 0; !created && queueEntryMachine.can(entry.state, 'REJOIN') && attempt < limits.staleRetriesMax; attempt++) {
    const to = unwrap(queueEntryMachine.transition(entry.state, 'REJOIN'));
    const moved = await ctx.store.moveQueueEntry({ queueId: entry.queueId, from: entry.state, to, now, ...placeInLine(now, saleStartsAt, random) });
    if (moved.ok) {
      entry = moved.entry;
      created = true;
    } else {
      entry = (await ctx.store.getQueueEntry(entry.queueId))?.entry ?? entry;
    }
  }
  return { created, view: queueView(ctx, await positionOfNew(ctx, entry), room) };
}

/** The caller's own place; another user's, or another activity's, is not found (404, nothing told). */
async function ownPlace(ctx: AppContext, userId: string, activityId: string, queueId: string): Promise<PlacedEntry> {
  const placed = await ctx.store.getQueueEntry(queueId);
  if (placed === null || placed.entry.userId !== userId || placed.entry.activityId !== activityId) {
    throw new AppError('QUEUE_ENTRY_NOT_FOUND', 'no such place in this queue');
  }
  return placed;
}

export async function getQueuePlace(ctx: AppContext, userId: string, activityId: string, queueId: string): Promise<QueueView> {
  return queueView(ctx, await ownPlace(ctx, userId, activityId, queueId), ctx.rooms.get(activityId));
}

/** Leaves the line (a WAITING or ADMITTED place becomes LEFT); a place already ended is answered as it is. */
export async function leaveQueue(ctx: AppContext, userId: string, activityId: string, queueId: string): Promise<QueueView> {
  let placed = await ownPlace(ctx, userId, activityId, queueId);
  for (let attempt = 0; attempt < limits.staleRetriesMax && queueEntryMachine.can(placed.entry.state, 'LEAVE'); attempt++) {
    const to = unwrap(queueEntryMachine.transition(placed.entry.state, 'LEAVE'));
    const { entry } = placed;
    const now = ctx.clock.now();
    const leftAdmission = entry.state === 'ADMITTED' && entry.admittedUntil !== null
      ? { userId: entry.userId, activityId: entry.activityId, admittedUntil: entry.admittedUntil } : undefined;
    const moved = await ctx.store.moveQueueEntry({ queueId, from: entry.state, to, now, ...(leftAdmission === undefined ? {} : { leftAdmission }) });
    if (moved.ok) {
      // This process at once; the others through the change feed's 'queue.left' row written with the move.
      if (leftAdmission !== undefined) ctx.rooms.leave(leftAdmission, now);
      return queueView(ctx, { entry: moved.entry, position: 0 }, ctx.rooms.get(activityId));
    }
    placed = await ownPlace(ctx, userId, activityId, queueId);
  }
  return queueView(ctx, placed, ctx.rooms.get(activityId));
}

/**
 * For the blocklist (issue 24 item 4): the user's WAITING and ADMITTED places, in every activity,
 * become BLOCKED (their admission tokens stop at their expiry; the blocklist's own check refuses
 * the buying routes meanwhile). Answers how many places were blocked.
 */
export async function blockQueuePlaces(ctx: AppContext, userId: string): Promise<number> {
  return ctx.store.blockQueuePlaces({ userId, now: ctx.clock.now() });
}

/** Expired admissions and sold-out lines moved per pass, at most. */
const sweepBatchMax = 1_000;

/**
 * One pass of the admitter (a leased singleton sweep: one process runs it at a time): lapsed
 * admissions become EXPIRED; then, for each room that is on, places are admitted at the set rate
 * over the time since the last pass, in admission order, only once the sale is open and while the
 * read model says something is left to sell. A line whose activity is finally sold out is told so.
 */
export async function admitOnce(ctx: AppContext): Promise<{ admitted: number; expired: number }> {
  const now = ctx.clock.now();
  const expired = await ctx.store.expireAdmissions({ now, limit: sweepBatchMax });
  let admitted = 0;
  let waiting = 0;
  const on = ctx.rooms.enabled();
  for (const room of on) {
    const activity = await gateActivityOf(ctx, room.activityId);
    if (activity === null) continue;
    const { saleStartsAt, saleEndsAt } = activity;
    const stock = await leftToSell(ctx, room.activityId);
    // The stored room: its admit clock is shared by every process that may run a pass.
    const stored = await ctx.store.getWaitingRoom(room.activityId);
    if (stored === null || !stored.enabled) continue;
    const first = stored.admitClock === 0;
    // The rate counts from when it was set: a pass that ran before a change (say, paused at 0,
    // then 1200 a minute) moved the clock at the old rate, so the time before updatedAt is not due
    // at the new one (under load, passes are far apart and that gap was a burst).
    const due = admissionsDue({
      admitPerMinute: stored.admitPerMinute, elapsedMs: first ? 0 : now - Math.max(stored.admitClock, stored.updatedAt), carried: stored.admitCarry,
      // Open only within the sale: after it ended an admission could buy nothing (issue 33).
      open: now >= saleStartsAt && now < saleEndsAt, leftToSell: stock.left,
    });
    // A room's first pass only starts the clock (one place due at once): admission goes at the rate, never a burst.
    const pass = await ctx.store.admitQueue({
      activityId: stored.activityId, limit: due.admit, now, admissionMs: stored.admissionSeconds * 1000, expectedClock: stored.admitClock, carry: first ? 1 : due.carry,
    });
    if (pass.ok) admitted += pass.admitted;
    if (stock.final) await ctx.store.sellOutQueue({ activityId: room.activityId, now, limit: sweepBatchMax });
    waiting += (await ctx.store.queueStats({ activityId: room.activityId, now })).waiting;
  }
  // The waiting-room length gauge (one counted range per room that is on, once per pass).
  ctx.telemetry.waitingRoom(waiting);
  return { admitted, expired };
}
