import { codeOf, field, type DrillHttp } from './http.js';

export interface SectionLayout {
  readonly id: string;
  readonly name: string;
  readonly rows: number;
  readonly seatsPerRow: number;
  readonly priceCents: number;
}

/** Rows of 50 (a multiple of the default 10 seats a hold, so each hold is 10 seats side by side). */
const seatsPerRowDrill = 50;
const rowsPerSectionDrill = 200;

/** Exactly `seats` seats: full sections of 200 rows × 50, then the rows left, then one short row. */
export function layoutFor(seats: number): SectionLayout[] {
  const perRow = Math.min(seatsPerRowDrill, seats);
  const fullRows = Math.floor(seats / perRow);
  const shortRow = seats % perRow;
  const sections: SectionLayout[] = [];
  const section = (rows: number, seatsPerRow: number): void => {
    const n = sections.length + 1;
    sections.push({ id: `S${String(n).padStart(3, '0')}`, name: `Section ${n}`, rows, seatsPerRow, priceCents: 5_000 });
  };
  for (let left = fullRows; left > 0; left -= rowsPerSectionDrill) section(Math.min(rowsPerSectionDrill, left), perRow);
  if (shortRow > 0) section(1, shortRow);
  return sections;
}

/** Creates the drill's show through the admin API, on sale now, with no per-buyer limit below its size. */
export async function createDrillShow(http: DrillHttp, adminToken: string, seats: number, runId: string, opensInSeconds = 0): Promise<string> {
  const now = Date.now();
  const reply = await http.call('POST', '/api/v1/admin/shows', {
    token: adminToken,
    body: {
      title: `Sell-out drill ${runId}`,
      venue: 'Drill Arena',
      city: 'Localhost',
      startsAt: new Date(now + 7 * 86_400_000).toISOString(),
      saleStartsAt: new Date(opensInSeconds > 0 ? now + opensInSeconds * 1000 : now - 60_000).toISOString(),
      saleEndsAt: new Date(now + 86_400_000).toISOString(),
      seatMap: { sections: layoutFor(seats) },
      // Each simulated buyer stands for many real ones, so it may buy any share of the show.
      maxSeatsPerUser: seats,
    },
  });
  if (reply.status !== 201) throw new Error(`creating the show failed: ${reply.status} ${codeOf(reply)} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return field(reply, 'showId', 'string');
}

export interface SeatMap {
  readonly seatIds: readonly string[];
  /** One of A/H/S/R per seat, in seatIds order. */
  readonly statuses: string;
}

/** The compact seat map: every seat id in map order and its status letter. */
export async function readSeatMap(http: DrillHttp, showId: string): Promise<SeatMap> {
  const reply = await http.call('GET', `/api/v1/shows/${showId}/seats?format=compact`);
  if (reply.status !== 200) throw new Error(`reading the seat map failed: ${reply.status} ${codeOf(reply)}`);
  const body = reply.body as { seatIds?: unknown; statuses?: unknown };
  if (!Array.isArray(body.seatIds) || typeof body.statuses !== 'string' || body.seatIds.length !== body.statuses.length) {
    throw new Error('the compact seat map has no seatIds/statuses of the same length');
  }
  return { seatIds: body.seatIds.map(String), statuses: body.statuses };
}

export async function logIn(http: DrillHttp, username: string, password: string): Promise<string> {
  const reply = await http.call('POST', '/api/v1/auth/login', { body: { username, password } });
  if (reply.status !== 200) throw new Error(`logging in as ${username} failed: ${reply.status} ${codeOf(reply)}`);
  return field(reply, 'token', 'string');
}

/** Refuses, with a message that says so, a --url that does not answer like TicketRush. */
export async function assertTicketRush(http: DrillHttp, url: string): Promise<void> {
  let health: Awaited<ReturnType<DrillHttp['call']>>;
  let shows: Awaited<ReturnType<DrillHttp['call']>>;
  try {
    health = await http.call('GET', '/healthz');
    shows = await http.call('GET', '/api/v1/shows?limit=1');
  } catch (error) {
    throw new Error(`${url} does not answer (${error instanceof Error ? error.message : String(error)})`);
  }
  const ok = health.status === 200 && (health.body as { status?: unknown } | null)?.status === 'ok'
    && shows.status === 200 && Array.isArray((shows.body as { shows?: unknown } | null)?.shows);
  if (!ok) throw new Error(`${url} is not a TicketRush server (GET /healthz answered ${health.status}, GET /api/v1/shows ${shows.status} without a show list)`);
}
