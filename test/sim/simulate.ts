import { register } from '../../src/app/accounts.js';
import { createShow } from '../../src/app/catalog.js';
import { createDiscountCode, discountReturnsSink } from '../../src/app/discounts.js';
import { sweepOverdueHolds } from '../../src/app/expiry.js';
import { relayOnce } from '../../src/app/outbox-relay.js';
import { refundPendingPayments } from '../../src/app/payments.js';
import { sweepPendingRefunds } from '../../src/app/refunds.js';
import { sweepShowCancellations } from '../../src/app/show-cancellation.js';
import { sweepPaidOrders } from '../../src/app/tickets.js';
import { waitlistSink } from '../../src/app/waitlist.js';
import type { TestStore } from '../support/backend.js';
import { violations } from './invariants.js';
import { operations, operationWeights, type Memory, type SimCast } from './operations.js';
import { Prng } from './prng.js';
import { readSnapshot } from './snapshot.js';
import { SimWorld } from './world.js';

/**
 * The seeded money simulation (issue 32 item 5): random sequences of the operations in
 * operations.ts on one store, background work run between steps as a server's jobs and sweeps
 * would, and every invariant of invariants.ts checked after every step. Everything random is
 * drawn from the seed (the clock, the ids and the provider are the simulation's own), so a
 * failure replays exactly from its seed.
 */

export interface SimOptions {
  readonly seed: number;
  readonly steps: number;
  readonly store: TestStore;
}

export interface SimResult {
  readonly seed: number;
  readonly store: TestStore;
  /** One line per step (and per background pass that did something). */
  readonly log: readonly string[];
  /** What broke, and at which step; null when every step kept every invariant. */
  readonly failure: string | null;
  readonly restarts: number;
}

/** The fake clock's start: fixed, so shows, holds and policies fall at the same moments on every replay. */
const startMs = Date.UTC(2030, 0, 1, 10, 0, 0);
const hourMs = 3_600_000;
/** Draws per step before a step is let go with nothing done. */
const drawsMax = 8;

/** Three shows of the same plan (so exchanges can move between them), buyers, an admin and two codes. */
async function cast(world: SimWorld): Promise<SimCast> {
  const ctx = world.ctx;
  const admin = await register(ctx, 'simadmin', 'sim-password-1', 'ADMIN');
  const buyers: string[] = [];
  for (let i = 1; i <= 4; i++) buyers.push((await register(ctx, `simbuyer${i}`, 'sim-password-1')).userId);
  const showIds: string[] = [];
  for (let i = 1; i <= 3; i++) {
    const show = await createShow(ctx, {
      title: `Sim ${i}`, venue: 'Hall', city: 'City',
      startsAt: startMs + 10 * 24 * hourMs, saleStartsAt: startMs - hourMs, saleEndsAt: startMs + 5 * 24 * hourMs,
      // Seated A and B at different list prices (an exchange between them differs), standing G.
      seatMap: { sections: [
        { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 2, seatsPerRow: 4, priceCents: 500, sellBy: 'SEAT', accessible: [] },
        { id: 'B', name: 'Circle', kind: 'SEATED', rows: 1, seatsPerRow: 4, priceCents: 800, sellBy: 'SEAT', accessible: [] },
        { id: 'G', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 6, priceCents: 1000 },
      ] },
      maxSeatsPerUser: 18, refundUntilHoursBefore: 24, exchangeUntilHoursBefore: 24,
    });
    showIds.push(show.showId);
  }
  const window = { validFrom: startMs - hourMs, validUntil: startMs + 5 * 24 * hourMs, maxUses: 8, perUserMax: 4 };
  await createDiscountCode(ctx, { code: 'SIM20', percentOff: 20, ...window });
  // 150 off does not divide evenly over 3 tickets: the allocation's rounding is exercised.
  await createDiscountCode(ctx, { code: 'SIM150', amountOffCents: 150, ...window });
  return { adminId: admin.userId, buyers, showIds, codes: ['SIM20', 'SIM150'] };
}

/**
 * What a server's background would do between two requests, at a moment the simulation chooses:
 * the late-refund pass a callback started, the outbox relay (waitlist offers, discount uses given
 * back), the expiry sweep, tickets for paid orders, pending refunds (the provider in a mood of its
 * own), show cancellations. A second passes first, so every sweep sees what the step wrote.
 */
async function settle(world: SimWorld, rng: Prng): Promise<string> {
  const ctx = world.ctx;
  // A callback that required a refund started a pass on the next turn (payments.ts afterSettlement): let it finish first.
  await new Promise((resolve) => setImmediate(resolve));
  const late = await refundPendingPayments(ctx);
  world.clock.advance(1_000);
  world.provider.refundMood = rng.weighted({ confirm: 70, fail: 20, refuse: 10 });
  try {
    const sinks = [waitlistSink(ctx), discountReturnsSink(ctx)];
    await world.outboxReadable();
    await relayOnce(ctx, sinks);
    const figures = {
      late,
      expired: await sweepOverdueHolds(ctx),
      ticketed: await sweepPaidOrders(ctx, 0),
      lateRefunds: await refundPendingPayments(ctx),
      refunds: await sweepPendingRefunds(ctx, 0),
      cancelled: await sweepShowCancellations(ctx),
    };
    await world.outboxReadable();
    await relayOnce(ctx, sinks);
    const done = Object.entries(figures).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
    return done.length === 0 ? '' : `${done.join(', ')} (provider: ${world.provider.refundMood})`;
  } finally {
    world.provider.refundMood = 'confirm';
  }
}

export async function simulate(options: SimOptions): Promise<SimResult> {
  const rng = new Prng(options.seed);
  const log: string[] = [];
  const memory: Memory = { orders: [], exchanges: [], refunds: [] };
  let failure: string | null = null;
  const world = await SimWorld.open(options.store, startMs);
  try {
    const people = await cast(world);
    let snapshot = await readSnapshot(world.ctx, people.showIds);
    for (let step = 1; step <= options.steps && failure === null; step++) {
      let name = rng.weighted(operationWeights);
      try {
        // An operation with nothing to act on now (no order to pay yet) gives way to another draw.
        let line: string | null = null;
        for (let draw = 0; line === null && draw < drawsMax; draw++) {
          if (draw > 0) name = rng.weighted(operationWeights);
          line = await operations[name]({ world, rng, cast: people, snapshot, memory, step });
        }
        log.push(`#${step} ${name}: ${line ?? 'nothing to do'}`);
        const background = await settle(world, rng);
        if (background !== '') log.push(`   background: ${background}`);
        snapshot = await readSnapshot(world.ctx, people.showIds);
        const wrong = await violations(world.ctx, snapshot, world.provider, people.codes);
        if (wrong.length > 0) failure = `after step ${step} (${name}):\n  ${wrong.join('\n  ')}`;
      } catch (error) {
        failure = `step ${step} (${name}) threw: ${error instanceof Error ? error.stack ?? error.message : String(error)}`;
      }
    }
  } finally {
    await world.close();
  }
  return { seed: options.seed, store: options.store, log, failure, restarts: world.restarts };
}

/** How a failure reads: the seed to replay it with, what broke, and the steps that led there. */
export function failureReport(result: SimResult): string {
  return [
    `money simulation failed on ${result.store}, seed ${result.seed} (replay: npm run simulate -- --seed ${result.seed} --runs 1 --store ${result.store})`,
    result.failure ?? '',
    'steps:',
    ...result.log,
  ].join('\n');
}
