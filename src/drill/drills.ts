import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditCheck } from './audit.js';
import { codeOf, type Reply } from './http.js';
import type { DrillPhase } from './report.js';
import type { DrillPlan, PhaseContext } from './runner.js';
import { readSeatMap } from './show.js';
import { percentile, round, summarise } from './stats.js';

/**
 * The fault drills of seed 002 §15 (issue 26 item 4) and the rush of issue 24 item 8, each a plan
 * for the runner: a phase of its own, then the rest of the show sold out, the audit, the report.
 * Every bound a drill checks is one of its documented options (docs/operations.md, Drills).
 */

function check(name: string, passed: boolean, detail: string): AuditCheck {
  return { name, passed, detail };
}

async function safeCall(send: () => Promise<Reply>): Promise<Reply | null> {
  try {
    return await send();
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// hot-seat: thousands of buyers on the same few seats.

export interface HotSeatOptions {
  /** Attempts, one a simulated buyer, spread over the signed-up accounts. */
  readonly crowd: number;
  readonly hotSeats: number;
  /** Attempts in flight at once. */
  readonly concurrency: number;
  /** Conflicts (a seat someone else holds) must be answered with p99 within this. */
  readonly conflictP99MaxMs: number;
  /** No answer may take longer (a lock wait past the bound shows up here). */
  readonly answerMaxMs: number;
}


export function hotSeatPlan(o: HotSeatOptions): DrillPlan {
  return {
    name: 'hot-seat',
    async phase(ctx: PhaseContext): Promise<DrillPhase> {
      const map = await readSeatMap(ctx.http, ctx.showId);
      const hot = map.seatIds.slice(0, o.hotSeats);
      ctx.say(`drill: ${o.crowd} buyers on ${hot.length} seats (${hot.join(', ')})…`);
      const conflicts: number[] = [];
      const all: number[] = [];
      const codes = new Map<string, number>();
      let wins = 0;
      let serverErrors = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: Math.min(o.concurrency, o.crowd) }, async () => {
        for (let i = next++; i < o.crowd; i = next++) {
          const buyer = ctx.buyers[i % ctx.buyers.length];
          if (buyer === undefined) return;
          const seat = hot[i % hot.length] as string;
          const reply = await safeCall(() => ctx.http.call('POST', `/api/v1/shows/${ctx.showId}/holds`, { token: buyer.bearer, body: { seatIds: [seat], holdSeconds: 60 } }));
          if (reply === null) {
            ctx.stats.refuse('hold', 'NETWORK_ERROR');
            continue;
          }
          all.push(reply.ms);
          if (reply.status === 201) {
            // A win: the seat goes straight back, so the crowd keeps fighting over it all along.
            wins++;
            ctx.stats.record('hold', reply.ms);
            const holdId = (reply.body as { holdId?: string }).holdId ?? '';
            const released = await safeCall(() => ctx.http.call('DELETE', `/api/v1/holds/${holdId}`, { token: buyer.bearer }));
            if (released?.status !== 200) ctx.stats.refuse('release', released === null ? 'NETWORK_ERROR' : codeOf(released));
            continue;
          }
          const code = codeOf(reply);
          codes.set(code, (codes.get(code) ?? 0) + 1);
          ctx.stats.refuse('hold', code);
          if (reply.status === 409) conflicts.push(reply.ms);
          if (reply.status >= 500 && code !== 'BUSY') serverErrors++;
        }
      }));
      const seconds = (performance.now() - started) / 1000;
      const c = summarise(conflicts);
      const a = summarise(all);
      return {
        summary: `${o.crowd} buyers (over ${ctx.buyers.length} accounts, ${o.concurrency} at once) on the same ${hot.length} seats; a winner gives its seat straight back`,
        figures: {
          attempts: o.crowd,
          attemptsPerSecond: round(o.crowd / Math.max(seconds, 0.001), 1),
          wins,
          conflicts: conflicts.length,
          conflictP50Ms: c.p50Ms,
          conflictP99Ms: c.p99Ms,
          answerP99Ms: a.p99Ms,
          answerMaxMs: a.maxMs,
          refusalsByCode: JSON.stringify(Object.fromEntries(codes)),
        },
        checks: [
          check('conflicts answered fast', conflicts.length > 0 && c.p99Ms <= o.conflictP99MaxMs, `${conflicts.length} conflicts, p99 ${c.p99Ms} ms (bound ${o.conflictP99MaxMs} ms)`),
          check('no lock wait past the bound', a.maxMs <= o.answerMaxMs, `slowest answer ${a.maxMs} ms (bound ${o.answerMaxMs} ms)`),
          check('no server error', serverErrors === 0, `${serverErrors} 5xx answers other than 503 BUSY`),
          check('someone won each time a seat was free', wins >= hot.length, `${wins} wins on ${hot.length} seats`),
        ],
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// payment-jitter: the provider slowed, failing, duplicating and reordering callbacks.

export interface PaymentJitterOptions {
  /** Each provider call answers this late (TICKETRUSH_FAULT_PROVIDER_DELAY_MS). */
  readonly providerDelayMs: number;
  /** Share of provider calls that fail (TICKETRUSH_FAULT_PROVIDER_ERROR_RATE). */
  readonly providerErrorRate: number;
  /** Share of callbacks sent twice (TICKETRUSH_SANDBOX_DUPLICATE_RATE). */
  readonly duplicateRate: number;
  /** Callbacks arrive at a random delay up to this (TICKETRUSH_SANDBOX_DELAY_MS_MAX): out of order. */
  readonly callbackDelayMsMax: number;
  /** Share of payments the card holder declines (the drill pays with outcome FAILED). */
  readonly declineRate: number;
}


export function paymentJitterPlan(o: PaymentJitterOptions): DrillPlan {
  return {
    name: 'payment-jitter',
    serverEnv: {
      TICKETRUSH_FAULT_PROVIDER_DELAY_MS: String(o.providerDelayMs),
      TICKETRUSH_FAULT_PROVIDER_ERROR_RATE: String(o.providerErrorRate),
      TICKETRUSH_SANDBOX_DUPLICATE_RATE: String(o.duplicateRate),
      TICKETRUSH_SANDBOX_DELAY_MS_MAX: String(o.callbackDelayMsMax),
    },
    payOutcome: () => (Math.random() < o.declineRate ? 'FAILED' : 'SUCCEEDED'),
    async phase(): Promise<DrillPhase> {
      // The faults are in the server from its start; the sell-out that follows is the drill, and
      // its audit the proof: every paid order ticketed once, every failed one released.
      return {
        summary: `the sandbox provider answers ${o.providerDelayMs} ms late, fails ${Math.round(o.providerErrorRate * 100)}% of calls, sends ${Math.round(o.duplicateRate * 100)}% of callbacks twice, each after a random delay up to ${o.callbackDelayMsMax} ms (out of order); card holders decline ${Math.round(o.declineRate * 100)}% of payments, and those seats are sold again`,
        figures: { providerDelayMs: o.providerDelayMs, providerErrorRate: o.providerErrorRate, duplicateRate: o.duplicateRate, callbackDelayMsMax: o.callbackDelayMsMax, declineRate: o.declineRate },
        checks: [],
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// expiry-outage: the expiry job stopped for a while, then back.

export interface ExpiryOutageOptions {
  /** The expiry job is stopped from the server's start for this long (TICKETRUSH_FAULT_EXPIRY_STOP_SECONDS). */
  readonly outageSeconds: number;
  /** Holds taken and abandoned during the outage. */
  readonly lapsingHolds: number;
  /** Their life. */
  readonly lapseSeconds: number;
  /** Once the job is back, every lapsed hold must be released within this. */
  readonly releaseBoundSeconds: number;
}


/** The outage's end, from the embedded server's log line "fault injection on (drills only)". */
function outageEnd(serverLog: string): number | null {
  for (const line of readFileSync(serverLog, 'utf8').split('\n')) {
    if (!line.includes('fault injection on')) continue;
    try {
      const until = (JSON.parse(line) as { expiryStoppedUntil?: unknown }).expiryStoppedUntil;
      if (typeof until === 'string') return Date.parse(until);
    } catch {
      // not this line
    }
  }
  return null;
}

export function expiryOutagePlan(o: ExpiryOutageOptions): DrillPlan {
  return {
    name: 'expiry-outage',
    serverEnv: { TICKETRUSH_FAULT_EXPIRY_STOP_SECONDS: String(o.outageSeconds), TICKETRUSH_EXPIRY_SWEEP_MS: '500' },
    async phase(ctx: PhaseContext): Promise<DrillPhase> {
      if (ctx.serverLog === null) throw new Error('expiry-outage injects its fault inside a server it starts itself: it takes no --url');
      const until = outageEnd(ctx.serverLog);
      if (until === null) throw new Error('the embedded server did not report its expiry outage window (server.log)');
      const leftMs = until - Date.now();
      if (leftMs < (o.lapseSeconds + 3) * 1000) throw new Error(`only ${Math.round(leftMs / 1000)} s of the ${o.outageSeconds} s outage are left after the setup: raise --outage-seconds`);
      const map = await readSeatMap(ctx.http, ctx.showId);
      const count = Math.min(o.lapsingHolds, Math.floor(map.seatIds.length / 2));
      ctx.say(`drill: ${count} holds of ${o.lapseSeconds} s taken and abandoned while the expiry job is stopped…`);
      const holds: { holdId: string; token: string }[] = [];
      for (let i = 0; i < count; i++) {
        const buyer = ctx.buyers[i % ctx.buyers.length];
        if (buyer === undefined) break;
        const reply = await safeCall(() => ctx.http.call('POST', `/api/v1/shows/${ctx.showId}/holds`, { token: buyer.bearer, body: { seatIds: map.seatIds.slice(2 * i, 2 * i + 2), holdSeconds: o.lapseSeconds } }));
        if (reply?.status === 201) {
          ctx.stats.record('hold', reply.ms);
          holds.push({ holdId: (reply.body as { holdId: string }).holdId, token: buyer.bearer });
        } else ctx.stats.refuse('hold', reply === null ? 'NETWORK_ERROR' : codeOf(reply));
      }
      await sleep(o.lapseSeconds * 1000 + 500);
      // The outage is real: the lapsed holds still show as HELD, nobody released them.
      const during = await readSeatMap(ctx.http, ctx.showId);
      const heldDuring = [...during.statuses].filter((s) => s === 'H').length;
      // Nothing sold from a lapsed hold: ordering one is refused although it was never released.
      let ordered = 0;
      const refusedCodes = new Map<string, number>();
      for (const h of holds) {
        const reply = await safeCall(() => ctx.http.call('POST', '/api/v1/orders', { token: h.token, body: { holdId: h.holdId }, headers: { 'x-idempotency-key': `lapsed.${ctx.runId}.${h.holdId}` } }));
        if (reply === null) continue;
        if (reply.status === 201) ordered++;
        else {
          const code = codeOf(reply);
          refusedCodes.set(code, (refusedCodes.get(code) ?? 0) + 1);
          ctx.stats.refuse('order', code);
        }
      }
      ctx.say(`drill: waiting for the expiry job to come back (${Math.max(0, Math.round((until - Date.now()) / 1000))} s)…`);
      await sleep(Math.max(0, until - Date.now()));
      const boundMs = o.releaseBoundSeconds * 1000;
      let releasedAfterMs: number | null = null;
      while (Date.now() - until <= boundMs + 5_000) {
        const now = await readSeatMap(ctx.http, ctx.showId);
        if (![...now.statuses].includes('H')) {
          releasedAfterMs = Math.max(0, Date.now() - until);
          break;
        }
        await sleep(100);
      }
      return {
        summary: `the expiry job (per-hold job and sweep) stopped for the server's first ${o.outageSeconds} s; ${holds.length} holds of ${o.lapseSeconds} s taken and abandoned in it, then ordered after they lapsed`,
        figures: {
          lapsedHolds: holds.length,
          seatsStillHeldDuringOutage: heldDuring,
          ordersFromLapsedHolds: ordered,
          lapsedOrderRefusals: JSON.stringify(Object.fromEntries(refusedCodes)),
          releasedSecondsAfterJobBack: releasedAfterMs === null ? null : round(releasedAfterMs / 1000, 2),
          releaseBoundSeconds: o.releaseBoundSeconds,
        },
        checks: [
          check('the outage was real (lapsed holds not released while the job was stopped)', heldDuring >= holds.length * 2 && holds.length > 0, `${heldDuring} seats HELD after ${holds.length} holds lapsed`),
          check('nothing sold from a lapsed hold', ordered === 0, `${ordered} orders accepted on lapsed holds; refusals ${JSON.stringify(Object.fromEntries(refusedCodes))}`),
          check('every lapsed hold released within the bound once the job is back', releasedAfterMs !== null && releasedAfterMs <= boundMs,
            releasedAfterMs === null ? `seats still HELD ${o.releaseBoundSeconds + 5} s after the job came back` : `all released ${round(releasedAfterMs / 1000, 2)} s after (bound ${o.releaseBoundSeconds} s)`),
        ],
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// rush: the waiting room (issue 24 item 8), with bots that skip the queue.

export interface RushOptions {
  readonly admitPerMinute: number;
  readonly admissionSeconds: number;
  /** Accounts that hammer the buying routes without going through the queue. */
  readonly bots: number;
  /** The sale opens this long after the show is created: everyone joins before. */
  readonly opensInSeconds: number;
  /** The queue stage gives up after this long. */
  readonly queueDeadlineSeconds: number;
}


/** Spearman's rank correlation with ties given their average rank. */
export function rankCorrelation(xs: readonly number[], ys: readonly number[]): number {
  const ranks = (v: readonly number[]): number[] => {
    const order = v.map((value, i) => ({ value, i })).sort((a, b) => a.value - b.value);
    const r = new Array<number>(v.length).fill(0);
    for (let k = 0; k < order.length;) {
      let j = k;
      while (j + 1 < order.length && order[j + 1]?.value === order[k]?.value) j++;
      for (let m = k; m <= j; m++) r[order[m]?.i ?? 0] = (k + j) / 2 + 1;
      k = j + 1;
    }
    return r;
  };
  const rx = ranks(xs);
  const ry = ranks(ys);
  const n = rx.length;
  if (n < 2) return 0;
  const mean = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (rx[i] ?? 0) - mean;
    const dy = (ry[i] ?? 0) - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}

/** |ρ| beyond which the admission order is not random: three standard deviations, at least 0.3. */
export function fairnessBound(n: number): number {
  return Math.max(0.3, 3 / Math.sqrt(Math.max(n - 1, 1)));
}

export function rushPlan(o: RushOptions): DrillPlan {
  return {
    name: 'rush',
    saleOpensInSeconds: o.opensInSeconds,
    async phase(ctx: PhaseContext): Promise<DrillPhase> {
      const room = await ctx.http.call('PUT', `/api/v1/admin/activities/${ctx.showId}/waiting-room`, {
        token: ctx.adminToken, body: { enabled: true, admitPerMinute: o.admitPerMinute, admissionSeconds: o.admissionSeconds },
      });
      const hasRoom = room.status === 200 || room.status === 201;
      if (!hasRoom && room.status !== 404) throw new Error(`turning the waiting room on failed: ${room.status} ${codeOf(room)}`);
      // Bots: their own accounts, straight at the holds, with no token or a forged one.
      const botNames = Array.from({ length: o.bots }, (_, i) => `drill.${ctx.runId}.bot${i}`);
      const botTokens: string[] = [];
      for (const name of botNames) {
        await ctx.http.call('POST', '/api/v1/auth/register', { body: { username: name, password: `drill-${ctx.runId}-password` } });
        const login = await ctx.http.call('POST', '/api/v1/auth/login', { body: { username: name, password: `drill-${ctx.runId}-password` } });
        if (login.status === 200) botTokens.push((login.body as { token: string }).token);
      }
      let botsStop = false;
      let botWins = 0;
      let botTries = 0;
      const botCodes = new Map<string, number>();
      const map = await readSeatMap(ctx.http, ctx.showId);
      const bots = botTokens.map(async (token, b) => {
        for (let i = 0; !botsStop; i++) {
          botTries++;
          const seat = map.seatIds[(b * 7919 + i) % map.seatIds.length] as string;
          const forged = i % 2 === 1 ? { 'x-admission-token': `forged.${ctx.runId}.${i}` } : {};
          const reply = await safeCall(() => ctx.http.call('POST', `/api/v1/shows/${ctx.showId}/holds`, { token, body: { seatIds: [seat] }, headers: forged }));
          if (reply === null) continue;
          if (reply.status === 201) {
            botWins++;
            // Only without a room can a bot hold: it lets go, so the audit sees the sale's buyers alone.
            await safeCall(() => ctx.http.call('DELETE', `/api/v1/holds/${(reply.body as { holdId: string }).holdId}`, { token }));
          } else {
            const code = codeOf(reply);
            botCodes.set(code, (botCodes.get(code) ?? 0) + 1);
            ctx.stats.refuse('hold', code);
          }
          await sleep(5);
        }
      });
      if (!hasRoom) {
        ctx.say('drill: no waiting room on this server (404): a plain rush, buyers straight to the sale');
        await sleep(Math.max(0, o.opensInSeconds * 1000 + 500));
        botsStop = true;
        await Promise.all(bots);
        return {
          summary: `no waiting room on this server (PUT …/waiting-room answered 404): a plain rush; ${botTokens.length} bots hammered the holds`,
          figures: { waitingRoom: 'absent', botAttempts: botTries, botHolds: botWins, botRefusals: JSON.stringify(Object.fromEntries(botCodes)) },
          checks: [],
        };
      }
      // Everyone joins before the sale opens.
      ctx.say(`drill: ${ctx.buyers.length} buyers join the queue before the sale opens; the room admits ${o.admitPerMinute} a minute…`);
      const show = await ctx.http.call('GET', `/api/v1/shows/${ctx.showId}`);
      const opensAt = Date.parse(String((show.body as { saleStartsAt?: unknown }).saleStartsAt ?? ''));
      // Joins go out in parallel (a crowd at the door); each place keeps when its join was answered.
      const joined: { queueId: string; joinedAt: number }[] = ctx.buyers.map(() => ({ queueId: '', joinedAt: Number.NaN }));
      const joinRefusals = new Map<string, number>();
      let nextJoin = 0;
      await Promise.all(Array.from({ length: Math.min(16, ctx.buyers.length) }, async () => {
        for (let i = nextJoin++; i < ctx.buyers.length; i = nextJoin++) {
          const buyer = ctx.buyers[i];
          if (buyer === undefined) continue;
          const reply = await safeCall(() => ctx.http.call('POST', `/api/v1/activities/${ctx.showId}/queue`, { token: buyer.bearer, body: {} }));
          if (reply !== null && (reply.status === 201 || reply.status === 200)) {
            ctx.stats.record('queue', reply.ms);
            joined[i] = { queueId: (reply.body as { queueId: string }).queueId, joinedAt: Date.now() };
          } else {
            const code = reply === null ? 'NETWORK_ERROR' : codeOf(reply);
            joinRefusals.set(code, (joinRefusals.get(code) ?? 0) + 1);
            ctx.stats.refuse('queue', code);
          }
        }
      }));
      // Each buyer polls its place until admitted; the round in which it was seen admitted ranks it.
      const admittedAt: (number | null)[] = ctx.buyers.map(() => null);
      const deadline = performance.now() + o.queueDeadlineSeconds * 1000;
      const states = new Map<string, number>();
      while (performance.now() < deadline && admittedAt.some((a, i) => a === null && joined[i]?.queueId !== '')) {
        const round = performance.now();
        await Promise.all(ctx.buyers.map(async (buyer, i) => {
          const place = joined[i];
          if (place === undefined || place.queueId === '' || admittedAt[i] !== null) return;
          const reply = await safeCall(() => ctx.http.call('GET', `/api/v1/activities/${ctx.showId}/queue/${place.queueId}`, { token: buyer.bearer }));
          const body = reply?.body as { state?: string; admissionToken?: string; admittedUntil?: string } | undefined;
          if (body?.state === 'ADMITTED' && typeof body.admissionToken === 'string') {
            // The server's own admission instant (its window's end less the window): one per admitter pass.
            const until = Date.parse(body.admittedUntil ?? '');
            admittedAt[i] = Number.isFinite(until) ? until - o.admissionSeconds * 1000 : round;
            ctx.stats.record('admit', performance.now() - ctx.startedAt);
            buyer.admission = { 'x-admission-token': body.admissionToken };
          } else if (body?.state !== undefined && body.state !== 'WAITING') {
            states.set(body.state, (states.get(body.state) ?? 0) + 1);
            admittedAt[i] = Number.NaN;
          }
        }));
        await sleep(200);
      }
      botsStop = true;
      await Promise.all(bots);
      const admitted = admittedAt.map((t, i) => ({ t, i })).filter((x): x is { t: number; i: number } => x.t !== null && !Number.isNaN(x.t));
      // Fairness is judged over those whose join was answered before the sale opened (the shuffle's crowd).
      const early = admitted.filter((x) => (joined[x.i]?.joinedAt ?? Infinity) < opensAt);
      const times = admitted.map((x) => x.t).sort((a, b) => a - b);
      // Admissions come in batches a sweep apart: the first batch is the start line, the rate is
      // what was admitted after it over the time since (null with fewer than five batches: a sweep
      // delayed by a busy machine would decide it).
      const first = times[0] ?? 0;
      const batches = new Set(times).size;
      const afterFirst = times.filter((t) => t > first).length;
      const spanMinutes = ((times[times.length - 1] ?? first) - first) / 60_000;
      const perMinute = batches >= 5 && spanMinutes > 0 ? afterFirst / spanMinutes : null;
      const fairness = rankCorrelation(early.map((x) => joined[x.i]?.joinedAt ?? 0), early.map((x) => x.t));
      const rateRatio = perMinute === null ? null : perMinute / o.admitPerMinute;
      void opensAt;
      return {
        summary: `waiting room on (${o.admitPerMinute}/min, ${o.admissionSeconds} s windows); ${ctx.buyers.length} buyers joined before the sale opened and bought with their admission tokens; ${botTokens.length} bots hammered the holds without queueing`,
        figures: {
          joined: joined.filter((j) => j.queueId !== '').length,
          admitted: admitted.length,
          admissionsPerMinute: perMinute === null ? null : round(perMinute, 1),
          setAdmitPerMinute: o.admitPerMinute,
          admissionRateRatio: rateRatio === null ? null : round(rateRatio, 2),
          fairnessRankCorrelation: round(fairness, 3),
          preOpeningJoiners: early.length,
          admitWaitAfterOpeningP50Seconds: round(percentile(Float64Array.from(admitted.map((x) => x.t - opensAt)).sort(), 0.5) / 1000, 2),
          endedOtherwise: JSON.stringify(Object.fromEntries(states)),
          joinRefusals: JSON.stringify(Object.fromEntries(joinRefusals)),
          botAttempts: botTries,
          botHolds: botWins,
          botRefusals: JSON.stringify(Object.fromEntries(botCodes)),
        },
        checks: [
          check('every buyer admitted', admitted.length === ctx.buyers.length, `${admitted.length} of ${ctx.buyers.length} admitted in ${o.queueDeadlineSeconds} s at most`),
          check('admitted at the set rate (within 25%; not judged over fewer than five batches)', rateRatio === null || (rateRatio >= 0.75 && rateRatio <= 1.25), `${perMinute === null ? 'n/a' : round(perMinute, 1)}/min against ${o.admitPerMinute}/min`),
          // Under a random order ρ has a standard deviation of 1/√(n−1): three of them, and never below 0.3.
          check('fair: join order says nothing of admission order (|rank correlation| small)', early.length < 10 || Math.abs(fairness) < fairnessBound(early.length),
            `Spearman ${round(fairness, 3)} over ${early.length} pre-opening joiners (bound ${round(fairnessBound(early.length), 2)})`),
          check('bots without a token got nothing', botWins === 0, `${botWins} holds of ${botTries} bot attempts`),
        ],
      };
    },
  };
}
