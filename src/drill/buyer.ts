import { setTimeout as sleep } from 'node:timers/promises';
import type { Claim, ClaimQueue } from './claims.js';
import { codeOf, field, type DrillHttp, type Reply } from './http.js';
import type { DrillStats, Step } from './stats.js';
import { TicketWatch } from './ticket-watch.js';

/** What every buyer's flow shares. */
export interface FlowContext {
  readonly http: DrillHttp;
  readonly stats: DrillStats;
  readonly queue: ClaimQueue;
  readonly showId: string;
  /** Makes idempotency keys unique across runs against one server. */
  readonly runId: string;
  readonly holdSeconds: number;
  readonly ticketTimeoutMs: number;
  readonly ticketsInFlightPerBuyer: number;
  /** performance.now() of the first hold; times in the timeline are from here. */
  readonly startedAt: number;
  /** Set to stop taking new claims (the deadline passed). */
  readonly stopped: () => boolean;
  /** Called when an order is seen TICKETED, with the time it was seen. */
  readonly onTicketed: (at: number) => void;
  /** The card holder's answer to each payment (payment-jitter fails some); SUCCEEDED when absent. */
  readonly payOutcome?: () => 'SUCCEEDED' | 'FAILED';
}

/** Attempts at one claim before it is left unsold (a refusal that keeps coming is not transient). */
const claimAttemptsMax = 3;
/** Retries of a request that got no answer or a 5xx; safe for orders (same idempotency key). */
const orderAttemptsMax = 3;
const TRANSIENT = Symbol('transient');

/** A simulated buyer: an account, a token, and the orders it is waiting to see ticketed. */
export class Buyer {
  private token = '';
  /** Sent with every hold and order (the waiting room's X-Admission-Token once admitted). */
  admission: Readonly<Record<string, string>> = {};
  /** Payments this buyer's card holder failed on purpose (payment-jitter). */
  failedPayments = 0;
  constructor(readonly username: string, private readonly password: string) {}

  async signUp(ctx: Pick<FlowContext, 'http' | 'stats'>): Promise<void> {
    const credentials = { username: this.username, password: this.password };
    const registered = await ctx.http.call('POST', '/api/v1/auth/register', { body: credentials });
    if (registered.status !== 201) throw new Error(`registering ${this.username} failed: ${registered.status} ${codeOf(registered)}`);
    ctx.stats.record('register', registered.ms);
    const login = await ctx.http.call('POST', '/api/v1/auth/login', { body: credentials });
    if (login.status !== 200) throw new Error(`logging in ${this.username} failed: ${login.status} ${codeOf(login)}`);
    ctx.stats.record('login', login.ms);
    this.token = field(login, 'token', 'string');
  }

  /** For the audit: this buyer's own view of what it bought. */
  get bearer(): string {
    return this.token;
  }

  /** Takes claims until none are left (or the drill stops), then waits for its tickets. */
  async buyUntilSoldOut(ctx: FlowContext): Promise<void> {
    const tickets = new TicketWatch(ctx, () => this.token);
    for (let claim = ctx.queue.next(); claim !== undefined && !ctx.stopped(); claim = ctx.queue.next()) {
      await this.buy(ctx, claim, tickets);
      // Bounded pipelining: the buyer goes on buying while its last orders wait for their tickets.
      await tickets.below(ctx.ticketsInFlightPerBuyer);
    }
    await tickets.drained();
  }

  /** hold → order → pay for one claim; on a refusal the hold is given back and the claim requeued. */
  private async buy(ctx: FlowContext, claim: Claim, tickets: TicketWatch): Promise<void> {
    claim.attempts++;
    const { stats } = ctx;
    const hold = await this.once(ctx, 'hold', 201, () => ctx.http.call('POST', `/api/v1/shows/${ctx.showId}/holds`, {
      token: this.token,
      headers: this.admission,
      body: claim.seatIds === null
        ? { quantity: claim.quantity, adjacent: false, holdSeconds: ctx.holdSeconds }
        : { seatIds: claim.seatIds, holdSeconds: ctx.holdSeconds },
    }));
    if (hold === null) return this.retryLater(ctx, claim);
    const holdId = field(hold, 'holdId', 'string');
    stats.holds++;
    stats.seatsHeld += claim.quantity;

    // The same key on every retry: a retried order is the same order (the server replays it).
    const key = `drill.${ctx.runId}.${holdId}`;
    let order: Reply | null = null;
    for (let attempt = 1; attempt <= orderAttemptsMax; attempt++) {
      const outcome = await this.step(ctx, 'order', 201, () => ctx.http.call('POST', '/api/v1/orders', {
        token: this.token, body: { holdId }, headers: { ...this.admission, 'x-idempotency-key': key },
      }), attempt < orderAttemptsMax);
      if (outcome !== TRANSIENT) {
        order = outcome;
        break;
      }
    }
    if (order === null) return this.releaseAndRetry(ctx, claim, holdId);
    const orderId = field(order, 'orderId', 'string');
    stats.orders++;

    const outcome = ctx.payOutcome?.() ?? 'SUCCEEDED';
    const paid = await this.once(ctx, 'pay', 202, () => ctx.http.call('POST', `/api/v1/orders/${orderId}/sandbox-pay`, { token: this.token, body: outcome === 'SUCCEEDED' ? {} : { outcome } }));
    if (paid === null) return this.releaseAndRetry(ctx, claim, holdId);
    if (outcome === 'FAILED') {
      // The card was declined: the buyer gives the seats back (cancelling the unpaid order) and
      // they are sold again, while the FAILED callback may still be on its way.
      this.failedPayments++;
      // Declined on purpose: not one of the claim's attempts (it must sell in the end).
      claim.attempts--;
      return this.releaseAndRetry(ctx, claim, holdId);
    }
    stats.payments++;
    stats.seatsPaid += claim.quantity;
    tickets.add(orderId, claim.quantity, performance.now());
  }

  /** One request that is not retried. */
  private async once(ctx: FlowContext, step: Step, expected: number, send: () => Promise<Reply>): Promise<Reply | null> {
    const outcome = await this.step(ctx, step, expected, send);
    return outcome === TRANSIENT ? null : outcome;
  }

  /**
   * One request; its latency is recorded when it gets the expected status, its refusal code
   * otherwise. With `retrying`, a failure worth retrying (no answer, a 5xx) is not counted and
   * says TRANSIENT, because the caller is about to send it again.
   */
  private async step(ctx: FlowContext, step: Step, expected: number, send: () => Promise<Reply>, retrying = false): Promise<Reply | null | typeof TRANSIENT> {
    let reply: Reply;
    try {
      reply = await send();
    } catch {
      if (retrying) return TRANSIENT;
      ctx.stats.refuse(step, 'NETWORK_ERROR');
      return null;
    }
    if (reply.status === expected) {
      ctx.stats.record(step, reply.ms);
      return reply;
    }
    if (retrying && reply.status >= 500) return TRANSIENT;
    ctx.stats.refuse(step, codeOf(reply));
    return null;
  }

  private async releaseAndRetry(ctx: FlowContext, claim: Claim, holdId: string): Promise<void> {
    // Releasing also cancels an unpaid order on the hold, so nothing is left held behind us.
    try {
      const released = await ctx.http.call('DELETE', `/api/v1/holds/${holdId}`, { token: this.token });
      if (released.status !== 200) ctx.stats.refuse('release', codeOf(released));
    } catch {
      ctx.stats.refuse('release', 'NETWORK_ERROR');
    }
    ctx.stats.seatsHeld -= claim.quantity;
    await this.retryLater(ctx, claim);
  }

  private async retryLater(ctx: FlowContext, claim: Claim): Promise<void> {
    if (claim.attempts >= claimAttemptsMax) return;
    // A short pause: whatever refused it (a seat still held by a flow that is backing out) may pass.
    await sleep(50 * claim.attempts);
    ctx.queue.giveBack(claim);
  }
}
