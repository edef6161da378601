import { checkIn, limits, planTicketIssue, unitsOf, type CheckInOutcome, type DoorScan, type Order, type Ticket } from '../domain/index.js';
import type { Page } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { enqueueJob } from './enqueue.js';
import { AppError, found, unwrap } from './errors.js';
import { sweepByKeyset } from './keyset-sweep.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { decodeTicketQr, encodeTicketQr } from './ticket-qr.js';
import { orderView, ticketView, type OrderView, type TicketView } from './views.js';

/**
 * Issues the tickets of a PAID order in one store operation (seats of sections sold by quantity are
 * picked there, at issue time); a no-op for any other state, so retries are safe.
 */
export async function issueOrderTickets(ctx: AppContext, orderId: string): Promise<number> {
  const issued = await withStaleRetries('order', async () => {
    const order = await ctx.store.getOrder(orderId);
    if (order === null || order.status !== 'PAID') return done(0);
    const now = ctx.clock.now();
    const identities = Array.from({ length: unitsOf(order.lines) }, () => ({ ticketId: ctx.ids.newId('ticket'), code: ctx.ids.newTicketCode() }));
    // Section list prices weigh each ticket's share of the charge (its paid price); a show not found weighs them equally.
    const show = await ctx.store.getShow(order.showId);
    const listCentsOf = (sectionId: string): number | undefined => show?.seatMap.sections.find((s) => s.id === sectionId)?.priceCents;
    const tickets = unwrap(planTicketIssue(order, identities, now, listCentsOf));
    const outcome = await ctx.store.issueTickets({ orderId, tickets, now });
    if (outcome.ok) {
      return done(outcome.tickets.length);
    }
    if ('code' in outcome) throw new AppError('INVARIANT_VIOLATED', `section ${outcome.sectionId} has fewer free seats than order ${orderId} paid for`);
    return again(outcome);
  });
  if (issued > 0) ctx.telemetry.ticketsIssued(issued);
  return issued;
}

/** Issue right after payment (job `issue-tickets`); if that fails or is lost, the sweep below tries again. */
export function issueTicketsSoon(ctx: AppContext, orderId: string): void {
  enqueueJob(ctx, 'issue-tickets', { orderId }, { key: `issue-tickets:${orderId}` });
}

/**
 * Safety net: every order PAID for longer than `olderThanMs` gets its tickets. An order that
 * cannot be ticketed is counted and passed over, and each run goes on where the last one stopped,
 * so it never keeps the orders behind it waiting.
 */
export async function sweepPaidOrders(ctx: AppContext, olderThanMs: number): Promise<number> {
  const before = ctx.clock.now() - olderThanMs;
  return sweepByKeyset(ctx, {
    pass: 'ticket-sweep',
    pageSize: limits.ticketIssueBatchMax,
    pagesMax: limits.sweepPagesPerRunMax,
    fetch: (after, limit) => ctx.store.ordersByStatus('PAID', before, after, limit),
    positionOf: (order) => ({ at: order.updatedAt, id: order.orderId }),
    async handle(page) {
      let issued = 0;
      for (const order of page) {
        try {
          issued += await issueOrderTickets(ctx, order.orderId);
        } catch (error) {
          ctx.telemetry.jobFailed('ticket-sweep', error);
        }
      }
      return issued;
    },
  });
}

/**
 * Someone else's order or ticket is reported as missing, so ids cannot be probed. An admin sees
 * every order: the viewer's role is read from the store, in the same read, and only when the
 * order is not their own, so a role given or withdrawn counts at once, whatever a token says.
 */
export async function getOrderWithTickets(ctx: AppContext, viewerUserId: string, orderId: string): Promise<OrderView & { tickets: TicketView[] }> {
  const order = await ctx.store.getOrder(orderId);
  const mayView = order !== null && (order.userId === viewerUserId || (await ctx.store.getUser(viewerUserId))?.role === 'ADMIN');
  const tickets = mayView ? await ctx.store.ticketsByOrder(orderId) : [];
  const visible = found(mayView ? order : null, 'ORDER_NOT_FOUND', 'no such order');
  // Unpaid with a hosted payment page (Stripe Checkout): the page the buyer pays on, again if they came back without paying.
  const payment = visible.status === 'PENDING_PAY' && visible.paymentId !== null ? await ctx.store.getPayment(visible.paymentId) : null;
  const checkout = payment?.checkoutUrl === undefined ? {} : { checkoutUrl: payment.checkoutUrl };
  return { ...orderView(visible), ...checkout, tickets: tickets.map((t) => view(ctx, t)) };
}

export async function listMyOrders(ctx: AppContext, userId: string, page: Page): Promise<OrderView[]> {
  const orders: Order[] = await ctx.store.listOrdersByUser(userId, page);
  return orders.map(orderView);
}

export async function listMyTickets(ctx: AppContext, userId: string, page: Page): Promise<TicketView[]> {
  const tickets = await ctx.store.ticketsByUser(userId, page);
  return tickets.map((t) => view(ctx, t));
}

export async function getMyTicket(ctx: AppContext, userId: string, ticketId: string): Promise<TicketView> {
  const ticket = await ctx.store.getTicket(ticketId);
  return view(ctx, found(ticket?.userId === userId ? ticket : null, 'TICKET_NOT_FOUND', 'no such ticket'));
}

const view = (ctx: AppContext, ticket: Ticket): TicketView => ticketView(ticket, encodeTicketQr(ctx.signer, ticket));

export interface CheckInResult {
  readonly outcome: CheckInOutcome;
  readonly ticket: TicketView;
}

/**
 * What the door was given: the signed QR payload, or the short code printed on the ticket with
 * the show the door is checking (a code is unique only as issued; it is looked up within its show).
 */
export type DoorTicketRef = { readonly qr: string } | { readonly code: string; readonly showId: string };

/** Spaces and dashes people type between groups of the printed code do not count; letters in either case. */
export const normalizeTicketCode = (code: string): string => code.replace(/[\s-]+/g, '').toUpperCase();

/**
 * How to find the ticket on each try, or null for a reference that cannot name a genuine ticket:
 * a QR must carry our signature and its ticket's code; a short code must be one issued for the show.
 */
function ticketLookup(ctx: AppContext, ref: DoorTicketRef): (() => Promise<Ticket | null>) | null {
  if ('qr' in ref) {
    const claims = decodeTicketQr(ctx.signer, ref.qr);
    if (claims === null) return null;
    return async () => {
      const ticket = await ctx.store.getTicket(claims.tid);
      return ticket !== null && ticket.code === claims.code ? ticket : null;
    };
  }
  const code = normalizeTicketCode(ref.code);
  return () => ctx.store.ticketByCode(ref.showId, code);
}

/**
 * Door check-in, by QR or by the printed short code: the same once-only rule and nonce either way
 * (one lookup, then the domain's checkIn and the store's compare-and-set). A forged or unknown QR
 * or code is TICKET_INVALID; a second use is TICKET_ALREADY_USED.
 */
export async function checkInTicket(ctx: AppContext, ref: DoorTicketRef, scan: DoorScan): Promise<CheckInResult> {
  const lookup = ticketLookup(ctx, ref);
  if (lookup === null) {
    ctx.telemetry.checkIn('TICKET_INVALID');
    throw new AppError('TICKET_INVALID', 'this code is not a genuine ticket');
  }
  try {
    const result = await withStaleRetries('ticket', async () => {
      const ticket = await lookup();
      if (ticket === null) throw new AppError('TICKET_INVALID', 'this code is not a genuine ticket');
      const checked = unwrap(checkIn(ticket, scan, ctx.clock.now()));
      if (checked.outcome !== 'ADMITTED') return done(checked);
      // Two stewards scanning at once: one admits, the other re-reads and is told it was used.
      const outcome = await ctx.store.checkIn({ ticket: checked.ticket, expectedStatus: ticket.status });
      return outcome.ok ? done({ ...checked, ticket: outcome.ticket }) : again(outcome);
    });
    ctx.telemetry.checkIn(result.outcome);
    return { outcome: result.outcome, ticket: view(ctx, result.ticket) };
  } catch (error) {
    ctx.telemetry.checkIn(error instanceof AppError ? error.code : 'ERROR');
    throw error;
  }
}
