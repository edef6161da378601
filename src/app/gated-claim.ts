import type { ClaimOutcome } from '../ports/engine/index.js';
import type { GateSeat, TakeSeatsOutcome, TakeUnitsOutcome } from '../ports/inventory-gate.js';
import { AppError } from './errors.js';
import { gateChangesOf, type GateService } from './inventory-gate.js';
import type { ShowSeats } from './seat-map-cache.js';

/**
 * Seed 003's claim: the Redis gate refuses what it knows is taken without touching the database;
 * otherwise it takes first, the database's lock-check-update decides, and anything the database
 * did not grant (a refusal, an error, a busy answer) goes back to the gate. When the gate cannot
 * answer (Redis away or slow, breaker open) or has not been rebuilt, the claim goes to the
 * database as it would without a gate. The caller asks the in-process read model first (no I/O):
 * the gate adds what other processes took a moment ago. The gate is never the truth: whatever
 * it says, the database decides a grant.
 */
export async function claimSeatsThroughGate(
  gate: GateService, entry: ShowSeats, seatIds: readonly string[], claim: () => Promise<ClaimOutcome>,
): Promise<ClaimOutcome> {
  const showId = entry.show.showId;
  const indexes = seatIds.map((id) => entry.layout.indexOf(id));
  // An unknown seat id: the database answers SEAT_NOT_FOUND with the ids; nothing to take.
  const take = indexes.some((i) => i < 0) ? null : await ask(gate, showId, () => gate.port.takeSeats(showId, indexes));
  if (take?.kind === 'refused' && !gateBehind(entry, take.indexes, take.versions)) {
    const refused = new Set(take.indexes);
    gate.claims.refused++;
    throw new AppError('SEAT_UNAVAILABLE', 'some seats are no longer available', { seatIds: seatIds.filter((_, k) => refused.has(indexes[k] as number)) });
  }
  if (take?.kind !== 'taken') {
    const outcome = await claim();
    if (outcome.ok && take !== null) await learnGrant(gate, entry, outcome);
    return outcome;
  }
  const taken: GateSeat[] = indexes.map((index, k) => ({ index, version: take.versions[k] ?? 0 }));
  let outcome: ClaimOutcome;
  try {
    outcome = await claim();
  } catch (error) {
    await giveBack(gate, () => gate.port.giveBackSeats(showId, taken));
    throw error;
  }
  if (outcome.ok) await learnGrant(gate, entry, outcome);
  else {
    // Seats the database says are taken stay taken in the gate (it was behind); the rest go back.
    const stillTaken = new Set(outcome.code === 'SEAT_UNAVAILABLE' ? outcome.seatIds : []);
    const back = taken.filter((_, k) => !stillTaken.has(seatIds[k] as string));
    if (back.length > 0) await giveBack(gate, () => gate.port.giveBackSeats(showId, back));
  }
  return outcome;
}

/** The same for units of a counted section (general admission, or seats sold by quantity). */
export async function claimUnitsThroughGate(
  gate: GateService, showId: string, sectionId: string, quantity: number, claim: () => Promise<ClaimOutcome>,
): Promise<ClaimOutcome> {
  const take = await ask(gate, showId, () => gate.port.takeUnits(showId, sectionId, quantity));
  if (take?.kind === 'short') {
    gate.claims.refused++;
    throw new AppError('NOT_ENOUGH_SEATS', `no places left for ${quantity}`, { available: take.left });
  }
  if (take?.kind !== 'taken') {
    const outcome = await claim();
    // Granted while the gate could not be asked: it still counts these places free (no relay brings
    // takes of units), so it is rebuilt from the database once Redis answers again.
    if (take === null && outcome.ok) gate.missedTake(showId);
    return outcome;
  }
  let outcome: ClaimOutcome;
  try {
    outcome = await claim();
  } catch (error) {
    await giveBack(gate, () => gate.port.giveBackUnits(showId, sectionId, quantity));
    throw error;
  }
  if (!outcome.ok) {
    // The database's own count, when it gave one, caps the gate's: a gate that was bypassed
    // meanwhile (Redis away) and believes in more units comes down to the truth at once.
    const leftAtMost = outcome.code === 'NOT_ENOUGH_SEATS' ? outcome.available : undefined;
    await giveBack(gate, () => gate.port.giveBackUnits(showId, sectionId, quantity, leftAtMost));
  }
  return outcome;
}

/**
 * Whether every seat the gate refused is one this process's read model saw freed at a newer
 * version than the gate holds: the gate has not heard of the release yet (the relay's lag), so the
 * database decides instead. Versions come from the database, so a read model that is behind
 * (another process took the seat) never overrules the gate.
 */
function gateBehind(entry: ShowSeats, indexes: readonly number[], versions: readonly number[]): boolean {
  return indexes.every((index, k) => entry.statuses[index] === 0 && (entry.versions[index] ?? 0) > (versions[k] ?? 0));
}

/**
 * A grant's seats, as the database versioned them, told to the gate at once (fenced by version like
 * any change): the gate may have lost the take (a flush) and been rebuilt from a read made just
 * before this commit, and must not leave the seats free until the relay brings the event.
 */
async function learnGrant(gate: GateService, entry: ShowSeats, outcome: ClaimOutcome & { ok: true }): Promise<void> {
  try {
    await gate.port.applyChanges(entry.show.showId, gateChangesOf(entry.layout, outcome.changes));
  } catch {
    gate.writesLost++;
  }
}

/** The gate's answer, or null when it cannot give one in time; a show it lost is rebuilt meanwhile. */
async function ask<T extends TakeSeatsOutcome | TakeUnitsOutcome>(gate: GateService, showId: string, take: () => Promise<T>): Promise<T | null> {
  try {
    const answer = await take();
    gate.answered(showId);
    if (answer.kind === 'notBuilt') {
      gate.claims.bypassed++;
      gate.triggerRebuild(showId);
    } else if (answer.kind === 'taken') gate.claims.taken++;
    return answer;
  } catch {
    // Redis unreachable, slow or skipped by the breaker: the database alone decides (slower, not down).
    gate.claims.bypassed++;
    return null;
  }
}

/**
 * A give-back that fails leaves the gate refusing what is free until its next rebuild (the built
 * marker's TTL): never an oversell, so the claim's own answer is not spoiled by it.
 */
async function giveBack(gate: GateService, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch {
    gate.writesLost++;
  }
}
