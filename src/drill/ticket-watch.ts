import { setTimeout as sleep } from 'node:timers/promises';
import type { DrillHttp } from './http.js';
import type { DrillStats } from './stats.js';

interface Watched {
  readonly seats: number;
  readonly paidAt: number;
}

export interface TicketWatchContext {
  readonly http: DrillHttp;
  readonly stats: DrillStats;
  readonly ticketTimeoutMs: number;
  readonly onTicketed: (at: number) => void;
}

/** How often a buyer looks at its orders while some wait for tickets (the resolution of the ticket step). */
const pollEveryMs = 100;

/**
 * One buyer's orders waiting for their tickets, watched together: one `GET /me/orders` (newest
 * first, no QR codes to sign) answers for all of them, instead of a `GET /orders/{id}` per order
 * per poll. An order that page does not show (more newer orders than the page holds) is asked
 * about on its own.
 */
export class TicketWatch {
  private readonly watched = new Map<string, Watched>();
  private readonly waiters: (() => void)[] = [];
  private running = false;
  private current: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: TicketWatchContext, private readonly token: () => string) {}

  get size(): number {
    return this.watched.size;
  }

  add(orderId: string, seats: number, paidAt: number): void {
    this.watched.set(orderId, { seats, paidAt });
    if (!this.running) {
      this.running = true;
      this.current = this.run();
    }
  }

  /** Resolves once fewer than `n` orders wait. */
  async below(n: number): Promise<void> {
    while (this.watched.size >= n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once every watched order is settled (ticketed, refused or timed out). */
  async drained(): Promise<void> {
    while (this.running) await this.current;
  }

  private async run(): Promise<void> {
    try {
      while (this.watched.size > 0) {
        await sleep(pollEveryMs);
        const statuses = await this.recentStatuses();
        for (const [orderId, watched] of [...this.watched]) {
          const status = statuses.get(orderId) ?? await this.statusOf(orderId);
          this.judge(orderId, watched, status);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private judge(orderId: string, watched: Watched, status: string | null): void {
    const now = performance.now();
    const { stats } = this.ctx;
    if (status === 'TICKETED') {
      stats.record('ticket', now - watched.paidAt);
      stats.seatsTicketed += watched.seats;
      stats.ticketedOrders++;
      this.ctx.onTicketed(now);
    } else if (status === 'CANCELLED' || status === 'REFUNDED') {
      stats.refuse('ticket', `ORDER_${status}`);
    } else if (now - watched.paidAt > this.ctx.ticketTimeoutMs) {
      stats.refuse('ticket', 'TICKET_TIMEOUT');
    } else {
      return;
    }
    this.watched.delete(orderId);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Statuses of the buyer's newest orders, enough of them to cover what is watched. */
  private async recentStatuses(): Promise<Map<string, string>> {
    const limit = Math.min(100, this.watched.size * 2 + 10);
    const statuses = new Map<string, string>();
    try {
      const reply = await this.ctx.http.call('GET', `/api/v1/me/orders?limit=${limit}`, { token: this.token() });
      const orders = reply.status === 200 ? (reply.body as { orders?: unknown }).orders : null;
      if (Array.isArray(orders)) {
        for (const o of orders as { orderId?: unknown; status?: unknown }[]) {
          if (typeof o.orderId === 'string' && typeof o.status === 'string') statuses.set(o.orderId, o.status);
        }
      }
    } catch {
      // No answer this time; the next poll asks again.
    }
    return statuses;
  }

  private async statusOf(orderId: string): Promise<string | null> {
    try {
      const reply = await this.ctx.http.call('GET', `/api/v1/orders/${orderId}`, { token: this.token() });
      const status = reply.status === 200 ? (reply.body as { status?: unknown }).status : null;
      return typeof status === 'string' ? status : null;
    } catch {
      return null;
    }
  }
}
