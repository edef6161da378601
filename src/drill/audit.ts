import { codeOf, type DrillHttp } from './http.js';
import { readSeatMap } from './show.js';

export interface AuditCheck {
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
}

export interface AuditResult {
  readonly passed: boolean;
  readonly checks: readonly AuditCheck[];
  readonly counts: {
    readonly capacity: number;
    readonly map: Readonly<Record<'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING', number>>;
    readonly showSeatCounts: Readonly<Record<string, number>>;
    readonly orders: Readonly<Record<string, number>>;
    readonly paidOrderSeats: number;
    readonly tickets: number;
    readonly ticketedSeenByDrill: number;
  };
}

interface OrderRow { orderId: string; showId: string; status: string; seatIds: string[] }
interface TicketRow { ticketId: string; orderId: string; showId: string; seatId: string; status: string }

const pageSize = 100;
const auditConcurrency = 8;
const letters: Record<string, 'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING'> = { A: 'AVAILABLE', H: 'HELD', S: 'SOLD', R: 'REFUND_PENDING' };

/**
 * Checks the sale over the API alone, from three independent views: the public seat map (and the
 * show's seat counts), and every buyer's own orders and tickets. `buyerTokens` are the drill's
 * buyers, the only ones who bought on the drill's show.
 */
export async function auditSale(http: DrillHttp, showId: string, capacity: number, buyerTokens: readonly string[], ticketedSeenByDrill: number): Promise<AuditResult> {
  const map = await readSeatMap(http, showId);
  const mapCounts = { AVAILABLE: 0, HELD: 0, SOLD: 0, REFUND_PENDING: 0 };
  for (const letter of map.statuses) mapCounts[letters[letter] ?? 'AVAILABLE']++;
  const show = await http.call('GET', `/api/v1/shows/${showId}`);
  if (show.status !== 200) throw new Error(`reading the show failed: ${show.status} ${codeOf(show)}`);
  const showSeatCounts = (show.body as { seatCounts?: Record<string, number> }).seatCounts ?? {};

  const orders: { buyer: number; order: OrderRow }[] = [];
  const tickets: { buyer: number; ticket: TicketRow }[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(auditConcurrency, buyerTokens.length) }, async () => {
    for (let buyer = next++; buyer < buyerTokens.length; buyer = next++) {
      const token = buyerTokens[buyer] as string;
      for (const order of await listAll<OrderRow>(http, '/api/v1/me/orders', 'orders', token)) if (order.showId === showId) orders.push({ buyer, order });
      for (const ticket of await listAll<TicketRow>(http, '/api/v1/me/tickets', 'tickets', token)) if (ticket.showId === showId) tickets.push({ buyer, ticket });
    }
  }));

  const orderCounts: Record<string, number> = {};
  for (const { order } of orders) orderCounts[order.status] = (orderCounts[order.status] ?? 0) + 1;
  const paid = orders.filter(({ order }) => order.status === 'PAID' || order.status === 'TICKETED');
  const paidOrderSeats = paid.reduce((sum, { order }) => sum + order.seatIds.length, 0);
  const unsettled = orders.filter(({ order }) => order.status === 'INIT' || order.status === 'PENDING_PAY').length;

  const seatTickets = new Map<string, number>();
  for (const { ticket } of tickets) seatTickets.set(ticket.seatId, (seatTickets.get(ticket.seatId) ?? 0) + 1);
  const doubled = [...seatTickets].filter(([, n]) => n > 1).map(([seat]) => seat);

  // Every ticket belongs to a ticketed order of the same buyer that has its seat.
  const ticketedOrders = new Map(orders.filter(({ order }) => order.status === 'TICKETED').map(({ buyer, order }) => [order.orderId, { buyer, seats: new Set(order.seatIds) }]));
  const stray = tickets.filter(({ buyer, ticket }) => {
    const order = ticketedOrders.get(ticket.orderId);
    return order === undefined || order.buyer !== buyer || !order.seats.has(ticket.seatId);
  }).length;

  const seatCountsAgree = (['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'] as const).every((s) => (showSeatCounts[s] ?? 0) === mapCounts[s]);
  const checks: AuditCheck[] = [
    check('sold out: every seat of the map is SOLD', map.seatIds.length === capacity && mapCounts.SOLD === capacity,
      `${mapCounts.SOLD} of ${capacity} SOLD (${mapCounts.AVAILABLE} available, ${mapCounts.HELD} held, ${mapCounts.REFUND_PENDING} refund pending)`),
    check('no seat in two tickets', doubled.length === 0, doubled.length === 0 ? `${seatTickets.size} seats, one ticket each` : `${doubled.length} seats with more than one ticket, e.g. ${doubled.slice(0, 5).join(', ')}`),
    check('sold = tickets = paid orders', mapCounts.SOLD === tickets.length && tickets.length === paidOrderSeats,
      `${mapCounts.SOLD} seats SOLD on the map, ${tickets.length} tickets, ${paidOrderSeats} seats in ${paid.length} paid orders`),
    check('every paid order is ticketed, every ticket in its order', (orderCounts.PAID ?? 0) === 0 && stray === 0,
      `${orderCounts.PAID ?? 0} orders PAID but not ticketed; ${stray} tickets outside a ticketed order of their buyer`),
    check('nothing left held', mapCounts.HELD === 0 && unsettled === 0, `${mapCounts.HELD} seats HELD on the map; ${unsettled} orders still awaiting payment`),
    check("the show's seat counts agree with its map", seatCountsAgree, `show ${JSON.stringify(showSeatCounts)}; map ${JSON.stringify(mapCounts)}`),
    check('the drill saw every ticketed seat the server has', ticketedSeenByDrill === tickets.length, `${ticketedSeenByDrill} seats seen TICKETED by the buyers; ${tickets.length} tickets listed`),
  ];
  return {
    passed: checks.every((c) => c.passed),
    checks,
    counts: { capacity, map: mapCounts, showSeatCounts, orders: orderCounts, paidOrderSeats, tickets: tickets.length, ticketedSeenByDrill },
  };
}

function check(name: string, passed: boolean, detail: string): AuditCheck {
  return { name, passed, detail };
}

/** Every page of one of the buyer's own lists (newest first; nothing changes while the audit reads). */
async function listAll<T>(http: DrillHttp, path: string, key: string, token: string): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const reply = await http.call('GET', `${path}?limit=${pageSize}&offset=${offset}`, { token });
    if (reply.status !== 200) throw new Error(`GET ${path} failed: ${reply.status} ${codeOf(reply)}`);
    const page = (reply.body as Record<string, unknown>)[key];
    if (!Array.isArray(page)) throw new Error(`GET ${path} answered without "${key}"`);
    all.push(...(page as T[]));
    if (page.length < pageSize) return all;
  }
}

/** What `ticketrush audit --json` said about the store, as the drill's report shows it. */
export interface StoreAuditOutcome {
  /** 0 clean, 1 violations, 2 could not run (another code: the command itself failed). */
  readonly exitCode: number;
  readonly passed: boolean;
  /** Its --json report (null when it printed none). */
  readonly report: unknown;
  /** One check per auditor check, named `store: <check>`, for the drill's report. */
  readonly checks: readonly AuditCheck[];
}

const storeAuditTimeoutMs = 120_000;

/**
 * The store auditor (`ticketrush audit --json`) run beside the server with the server's own
 * environment, as an operator would: the drill stays an HTTP-only edge (it imports no layer), and
 * the command opens the store read-only next to the live server. Same entry point and loader
 * flags as this process (the built bin, or the sources under tsx).
 */
export async function auditStore(env: Readonly<Record<string, string | undefined>>): Promise<StoreAuditOutcome> {
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('cannot tell which script to run the auditor with');
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...process.execArgv, entry, 'audit', '--json'], { env: { ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), storeAuditTimeoutMs);
  const exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 128)));
  clearTimeout(timer);
  let report: unknown = null;
  try {
    report = JSON.parse(stdout) as unknown;
  } catch {
    report = null;
  }
  const counts = (report as { counts?: Record<string, number> } | null)?.counts ?? {};
  const violations = (report as { violations?: { check: string; showId: string; subject: string; detail: string }[] } | null)?.violations ?? [];
  const checks: AuditCheck[] = Object.keys(counts).length === 0
    ? [check('store: the auditor ran', false, `ticketrush audit exited ${exitCode}: ${stderr.trim().slice(0, 500)}`)]
    : Object.entries(counts).map(([name, n]) => check(`store: ${name}`, n === 0, n === 0 ? 'no violation'
      : `${n} violations, e.g. ${violations.filter((v) => v.check === name).slice(0, 3).map((v) => `${v.subject}: ${v.detail}`).join('; ')}`));
  return { exitCode, passed: exitCode === 0, report, checks };
}
