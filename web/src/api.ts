import { session, signOut } from './session';

/** The API's error shape: a stable code and a message. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

/** Server time minus this browser's time, learnt from the Date header, so countdowns match the server. */
export let clockSkewMs = 0;

export interface ApiOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const token = session.value?.token;
  const response = await fetch(`/api/v1${path}`, {
    method: options.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const date = Date.parse(response.headers.get('date') ?? '');
  if (Number.isFinite(date)) clockSkewMs = date + 500 - Date.now(); // the header has whole seconds: take the middle
  const text = await response.text();
  const body = text === '' ? null : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const error = (body ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };
    if (response.status === 401 && token !== undefined) signOut();
    throw new ApiError(response.status, error.code ?? 'HTTP_' + response.status, error.message ?? response.statusText, error.details);
  }
  return body as T;
}

export const serverNow = (): number => Date.now() + clockSkewMs;

export interface Section {
  readonly id: string;
  readonly name: string;
  readonly rows: number;
  readonly seatsPerRow: number;
  readonly priceCents: number;
}

export interface Show {
  readonly showId: string;
  readonly title: string;
  readonly venue: string;
  readonly city: string;
  readonly startsAt: string;
  readonly saleStartsAt: string;
  readonly saleEndsAt: string;
  readonly status: 'UPCOMING' | 'ON_SALE' | 'ENDED';
  readonly secondsRemaining: number;
  readonly capacity: number;
  readonly sections: readonly Section[];
  readonly seatCounts?: Readonly<Record<string, number>>;
}

export interface Hold {
  readonly holdId: string;
  readonly showId: string;
  readonly seatIds: readonly string[];
  readonly totalPriceCents: number;
  readonly status: string;
  readonly expiresAt: string;
}

export interface Ticket {
  readonly ticketId: string;
  readonly orderId: string;
  readonly showId: string;
  readonly seatId: string;
  readonly code: string;
  readonly status: 'VALID' | 'USED' | 'INVALID';
  readonly qr: string;
}

export interface Order {
  readonly orderId: string;
  readonly showId: string;
  readonly holdId: string;
  readonly seatIds: readonly string[];
  readonly status: 'INIT' | 'PENDING_PAY' | 'PAID' | 'TICKETED' | 'CANCELLED' | 'REFUNDED';
  readonly amountCents: number;
  readonly tickets?: readonly Ticket[];
}
