import type { FastifyInstance } from 'fastify';
import { adminCredentials } from './backend.js';

/** A thin client over app.inject(): what a buyer, an admin or a door scanner would send. */
export interface Reply {
  readonly status: number;
  readonly body: any;
  readonly headers: Record<string, string | string[] | number | undefined>;
}

export class ApiClient {
  constructor(private readonly app: FastifyInstance, private token: string | null = null) {}

  async request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await this.app.inject({
      method,
      url,
      headers: { ...(this.token === null ? {} : { authorization: `Bearer ${this.token}` }), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    const text = response.body;
    return { status: response.statusCode, body: text === '' ? null : safeJson(text), headers: response.headers };
  }

  async signUp(username: string, password = 'password-123'): Promise<this> {
    await this.request('POST', '/api/v1/auth/register', { username, password });
    return this.logIn(username, password);
  }

  async logIn(username: string, password: string): Promise<this> {
    const reply = await this.request('POST', '/api/v1/auth/login', { username, password });
    if (reply.status !== 200) throw new Error(`login failed: ${JSON.stringify(reply.body)}`);
    this.token = reply.body.token as string;
    return this;
  }

  as(token: string | null): ApiClient {
    return new ApiClient(this.app, token);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function adminClient(app: FastifyInstance): Promise<ApiClient> {
  return new ApiClient(app).logIn(adminCredentials.username, adminCredentials.password);
}

export interface ShowOptions {
  readonly sections?: readonly (
    | { id: string; name: string; kind?: 'SEATED'; rows: number; seatsPerRow: number; priceCents: number; sellBy?: 'SEAT' | 'QUANTITY'; accessible?: { row: number; number: number }[] }
    | { id: string; name: string; kind: 'GENERAL_ADMISSION'; capacity: number; priceCents: number }
  )[];
  readonly saleOpensInMs?: number;
  readonly saleClosesInMs?: number;
  readonly maxSeatsPerUser?: number;
}

/** Creates a show through the admin API; on sale now unless told otherwise. */
export async function createShow(admin: ApiClient, options: ShowOptions = {}, now = Date.now()): Promise<string> {
  const reply = await admin.request('POST', '/api/v1/admin/shows', {
    title: 'Test Show',
    venue: 'Test Hall',
    city: 'Test City',
    startsAt: new Date(now + 10 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now + (options.saleOpensInMs ?? -60_000)).toISOString(),
    saleEndsAt: new Date(now + (options.saleClosesInMs ?? 5 * 86_400_000)).toISOString(),
    seatMap: { sections: options.sections ?? [{ id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 5000 }] },
    ...(options.maxSeatsPerUser === undefined ? {} : { maxSeatsPerUser: options.maxSeatsPerUser }),
  });
  if (reply.status !== 201) throw new Error(`create show failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.showId as string;
}
