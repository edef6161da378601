import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type {
  BeginRebuildOutcome, GateChanges, GateHealth, GateSeat, InventoryGate, RebuildStep, TakeSeatsOutcome, TakeUnitsOutcome,
} from '../../ports/inventory-gate.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { applyChangesLua, beginRebuildLua, giveBackSeatsLua, giveBackUnitsLua, rebuildStepLua, takeSeatsLua, takeUnitsLua } from './gate-scripts.js';

export interface RedisGateOptions {
  readonly url: string;
  /** Every key starts with it (config.redis.prefix). */
  readonly prefix: string;
  /** A command not answered within this fails, and the claim goes to the database (default 80 ms). */
  readonly commandTimeoutMs?: number;
  /** Consecutive failures that open the breaker (default 3), and how long it stays open (default 1 s). */
  readonly breakerFailures?: number;
  readonly breakerOpenMs?: number;
  /** How long a rebuilt picture is trusted before it is rebuilt again (default 10 min). */
  readonly builtTtlMs?: number;
  /** A rebuild that stops renewing its lease (its process died) lets another start after this (default 10 s). */
  readonly rebuildLeaseMs?: number;
}

/** Thrown when Redis is skipped (breaker open) or did not answer: the caller goes to the database. */
export class GateUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateUnavailableError';
  }
}

type Reply = (number | string)[];
const keysPerShow = 7;
/** Seat indexes one take or give-back may name (a claim names at most limits' seats per hold, far fewer). */
const seatsPerCallMax = 10_000;

interface GateCommands {
  gateTakeSeats(...args: (string | number)[]): Promise<Reply>;
  gateTakeUnits(...args: (string | number)[]): Promise<Reply>;
  gateGiveBackSeats(...args: (string | number)[]): Promise<Reply>;
  gateGiveBackUnits(...args: (string | number)[]): Promise<Reply>;
  gateApplyChanges(...args: (string | number)[]): Promise<Reply>;
  gateBeginRebuild(...args: (string | number)[]): Promise<Reply>;
  gateRebuildStep(...args: (string | number)[]): Promise<Reply>;
}

/** The keys of one show, in the order every script expects (see gate-scripts.ts). */
export function gateKeys(prefix: string, showId: string): string[] {
  const base = `${prefix}gate:{${showId}}:`;
  return ['built', 'taken', 'ver', 'units', 'gen', 'lease', 'applied'].map((k) => base + k);
}

/**
 * The InventoryGate on Redis (ioredis): each operation one Lua script (defineCommand sends
 * EVALSHA, falling back to EVAL once after a restart). Bounded waiting: a short command timeout,
 * no offline queue (a command while disconnected fails at once), no per-request retries, and a
 * circuit breaker, so a slow or dead Redis makes holds slower by at most one timeout, then by nothing.
 */
export function openRedisGate(options: RedisGateOptions): InventoryGate & { readonly redis: Redis } {
  const redis = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs ?? 80,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    // Keep trying to come back, at most every 2 s; the breaker keeps holds off it meanwhile.
    retryStrategy: (times) => Math.min(100 * times, 2_000),
    lazyConnect: false,
  }) as Redis & GateCommands;
  // Connection errors are expected while Redis is away; they surface as failed commands and health().
  redis.on('error', () => undefined);
  const scripts: [keyof GateCommands, string][] = [
    ['gateTakeSeats', takeSeatsLua], ['gateTakeUnits', takeUnitsLua], ['gateGiveBackSeats', giveBackSeatsLua],
    ['gateGiveBackUnits', giveBackUnitsLua], ['gateApplyChanges', applyChangesLua], ['gateBeginRebuild', beginRebuildLua],
    ['gateRebuildStep', rebuildStepLua],
  ];
  for (const [name, lua] of scripts) redis.defineCommand(name, { numberOfKeys: keysPerShow, lua });
  const breaker = new CircuitBreaker(options.breakerFailures ?? 3, options.breakerOpenMs ?? 1_000);
  const builtTtlMs = options.builtTtlMs ?? 600_000;
  const leaseMs = options.rebuildLeaseMs ?? 10_000;
  // Tells this process's leases from another's.
  const owner = randomBytes(8).toString('hex');

  async function call(name: keyof GateCommands, showId: string, args: (string | number)[]): Promise<Reply> {
    if (!breaker.allow()) throw new GateUnavailableError('redis gate skipped: circuit open');
    if (redis.status !== 'ready') {
      breaker.failed();
      throw new GateUnavailableError(`redis gate not connected (${redis.status})`);
    }
    try {
      const reply = await redis[name](...gateKeys(options.prefix, showId), ...args);
      breaker.succeeded();
      return reply;
    } catch (error) {
      breaker.failed();
      throw new GateUnavailableError(`redis gate failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Outbox positions as both stores write them (see GateChanges.position): the scripts compare them
  // number by number, so anything else is refused before it could be stored as "applied".
  function checkPosition(position: string | undefined): string {
    if (position === undefined) return '';
    if (!/^\d{1,20}(:\d{1,20}){0,3}$/.test(position)) throw new RangeError(`not an outbox position: ${position.slice(0, 64)}`);
    return position;
  }

  function checkIndexes(indexes: readonly number[]): void {
    if (indexes.length > seatsPerCallMax || !indexes.every((i) => Number.isInteger(i) && i >= 0 && i < 2 ** 32)) {
      throw new RangeError('seat indexes must be at most 10,000 non-negative integers');
    }
  }

  return {
    redis,
    async takeSeats(showId, indexes): Promise<TakeSeatsOutcome> {
      checkIndexes(indexes);
      const reply = await call('gateTakeSeats', showId, [...indexes]);
      if (reply[0] === -1) return { kind: 'notBuilt' };
      if (reply[0] === 0) {
        const pairs = reply.slice(1).map(Number);
        return { kind: 'refused', indexes: pairs.filter((_, k) => k % 2 === 0), versions: pairs.filter((_, k) => k % 2 === 1) };
      }
      return { kind: 'taken', versions: reply.slice(1).map(Number) };
    },
    async takeUnits(showId, sectionId, units): Promise<TakeUnitsOutcome> {
      const reply = await call('gateTakeUnits', showId, [sectionId, units]);
      if (reply[0] === -1) return { kind: 'notBuilt' };
      if (reply[0] === 0) return { kind: 'short', left: Number(reply[1]) };
      return { kind: 'taken' };
    },
    async giveBackSeats(showId, seats: readonly GateSeat[]): Promise<void> {
      checkIndexes(seats.map((s) => s.index));
      await call('gateGiveBackSeats', showId, seats.flatMap((s) => [s.index, s.version]));
    },
    async giveBackUnits(showId, sectionId, units, leftAtMost): Promise<void> {
      await call('gateGiveBackUnits', showId, [sectionId, units, leftAtMost ?? -1]);
    },
    async applyChanges(showId, changes: GateChanges): Promise<boolean> {
      if (changes.seats.length === 0 && changes.unitsBack.length === 0) return true;
      checkIndexes(changes.seats.map((s) => s.index));
      const reply = await call('gateApplyChanges', showId, [
        checkPosition(changes.position), changes.seats.length,
        ...changes.seats.flatMap((s) => [s.index, s.taken ? 1 : 0, s.version]),
        ...changes.unitsBack.filter((u) => u.units > 0).flatMap((u) => [u.sectionId, u.units]),
      ]);
      return reply[0] === 1;
    },
    async beginRebuild(showId): Promise<BeginRebuildOutcome> {
      const reply = await call('gateBeginRebuild', showId, [owner, leaseMs]);
      if (reply[0] === 1) return { kind: 'built' };
      if (reply[0] === 0) return { kind: 'busy' };
      return { kind: 'fence', fence: String(reply[1]) };
    },
    async rebuildStep(showId, step: RebuildStep): Promise<boolean> {
      if (step.taken.length !== step.versions.length) throw new RangeError('a rebuild step needs one version per seat');
      checkIndexes([step.from, ...step.versions]);
      const reply = await call('gateRebuildStep', showId, [
        step.fence, owner, leaseMs, builtTtlMs, step.from, step.taken.map((t) => (t ? '1' : '0')).join(''),
        step.finish === undefined ? 0 : 1, step.taken.length, checkPosition(step.finish?.appliedThrough), ...step.versions,
        ...(step.finish?.unitsLeft ?? []).flatMap((u) => [u.sectionId, u.left]),
      ]);
      return reply[0] === 1;
    },
    async forget(showId): Promise<void> {
      if (!breaker.allow()) throw new GateUnavailableError('redis gate skipped: circuit open');
      try {
        // The marker goes and gen moves in one transaction (MULTI): a rebuild already under way,
        // whose snapshot may predate what made the caller doubt the gate, then fails its fence and
        // reads the database again instead of setting the marker on a stale picture.
        const [built, , , , gen] = gateKeys(options.prefix, showId) as [string, string, string, string, string];
        await redis.multi().del(built).incr(gen).exec();
        breaker.succeeded();
      } catch (error) {
        breaker.failed();
        throw new GateUnavailableError(`redis gate failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    health(): GateHealth {
      return redis.status === 'ready' && !breaker.open ? 'up' : 'down';
    },
    async close(): Promise<void> {
      redis.disconnect();
    },
  };
}
