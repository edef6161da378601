import { checkIn, issueTickets, limits, type CheckInOutcome, type Order, type Ticket } from '../domain/index.js';
import type { Page } from '../ports/store.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { decodeTicketQr, encodeTicketQr } from './ticket-qr.js';
import { orderView, ticketView, type OrderView, type TicketView } from './views.js';

/** Issues the tickets of a PAID order; a no-op for any other state, so retries are safe. */
export async function issueOrderTickets(ctx: AppContext, orderId: string): Promise<number> {
  const now = ctx.clock.now();
  const issued = await ctx.store.transaction(async (tx) => {
    const order = await tx.orders.get(orderId);
    if (order === null || order.status !== 'PAID') return 0;
    const seats = await tx.seats.getMany(order.showId, order.seatIds);
    const identities = order.seatIds.map(() => ({ ticketId: ctx.ids.newId('ticket'), code: ctx.ids.newTicketCode() }));
    const result = unwrap(issueTickets(order, seats, identities, now));
    await tx.tickets.insertMany(result.tickets);
    await tx.orders.save(result.order, order.status);
    return result.tickets.length;
  });
  if (issued > 0) ctx.telemetry.ticketsIssued(issued);
  return issued;
}

/** Issue right after payment; if that fails part way, the sweep below tries again. */
export function issueTicketsSoon(ctx: AppContext, orderId: string): void {
  setImmediate(() => void issueOrderTickets(ctx, orderId).catch((error: unknown) => ctx.telemetry.jobFailed('issue-tickets', error)));
}

/** Safety net: every order PAID for longer than `olderThanMs` gets its tickets. */
export async function sweepPaidOrders(ctx: AppContext, olderThanMs: number): Promise<number> {
  const before = ctx.clock.now() - olderThanMs;
  const paid = await ctx.store.read((r) => r.orders.findByStatus('PAID', before, limits.ticketIssueBatchMax));
  let issued = 0;
  for (const order of paid) issued += await issueOrderTickets(ctx, order.orderId);
  return issued;
}

export interface Viewer {
  readonly userId: string;
  readonly isAdmin: boolean;
}

/** Someone else's order or ticket is reported as missing, so ids cannot be probed. */
export async function getOrderWithTickets(ctx: AppContext, viewer: Viewer, orderId: string): Promise<OrderView & { tickets: TicketView[] }> {
  const { order, tickets } = await ctx.store.read(async (r) => ({ order: await r.orders.get(orderId), tickets: await r.tickets.listByOrder(orderId) }));
  const visible = found(order !== null && (order.userId === viewer.userId || viewer.isAdmin) ? order : null, 'ORDER_NOT_FOUND', 'no such order');
  return { ...orderView(visible), tickets: tickets.map((t) => view(ctx, t)) };
}

export async function listMyOrders(ctx: AppContext, userId: string, page: Page): Promise<OrderView[]> {
  const orders: Order[] = await ctx.store.read((r) => r.orders.listByUser(userId, page));
  return orders.map(orderView);
}

export async function listMyTickets(ctx: AppContext, userId: string, page: Page): Promise<TicketView[]> {
  const tickets = await ctx.store.read((r) => r.tickets.listByUser(userId, page));
  return tickets.map((t) => view(ctx, t));
}

export async function getMyTicket(ctx: AppContext, userId: string, ticketId: string): Promise<TicketView> {
  const ticket = await ctx.store.read((r) => r.tickets.get(ticketId));
  return view(ctx, found(ticket?.userId === userId ? ticket : null, 'TICKET_NOT_FOUND', 'no such ticket'));
}

const view = (ctx: AppContext, ticket: Ticket): TicketView => ticketView(ticket, encodeTicketQr(ctx.signer, ticket));

export interface CheckInResult {
  readonly outcome: CheckInOutcome;
  readonly ticket: TicketView;
}

/** Door check-in: a forged or unknown code is TICKET_INVALID; a second use is TICKET_ALREADY_USED. */
export async function checkInTicket(ctx: AppContext, qr: string, nonce: string | null): Promise<CheckInResult> {
  const claims = decodeTicketQr(ctx.signer, qr);
  if (claims === null) {
    ctx.telemetry.checkIn('TICKET_INVALID');
    throw new AppError('TICKET_INVALID', 'this code is not a genuine ticket');
  }
  const now = ctx.clock.now();
  try {
    const result = await ctx.store.transaction(async (tx) => {
      const ticket = await tx.tickets.get(claims.tid);
      if (ticket === null || ticket.code !== claims.code) throw new AppError('TICKET_INVALID', 'this code is not a genuine ticket');
      const checked = unwrap(checkIn(ticket, nonce, now));
      if (checked.outcome === 'ADMITTED') await tx.tickets.save(checked.ticket, ticket.status);
      return checked;
    });
    ctx.telemetry.checkIn(result.outcome);
    return { outcome: result.outcome, ticket: view(ctx, result.ticket) };
  } catch (error) {
    ctx.telemetry.checkIn(error instanceof AppError ? error.code : 'ERROR');
    throw error;
  }
}
