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
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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

/** A seated section: rows of numbered seats, sold seat by seat (SEAT) or as a count (QUANTITY). */
export interface Section {
  readonly id: string;
  readonly name: string;
  readonly kind?: 'SEATED';
  readonly sellBy?: 'SEAT' | 'QUANTITY';
  readonly rows: number;
  readonly seatsPerRow: number;
  readonly priceCents: number;
  /** Seats suited to wheelchair users, marked on the seat map. */
  readonly accessible?: readonly { readonly row: number; readonly number: number }[];
}

/** A general-admission (standing) section: a capacity, no seats. */
export interface GaSection {
  readonly id: string;
  readonly name: string;
  readonly kind: 'GENERAL_ADMISSION';
  readonly capacity: number;
  readonly priceCents: number;
}

export type ShowSection = Section | GaSection;

/** Counted sections are held as a quantity: general admission, or seated sold by QUANTITY. */
export const isCounted = (s: ShowSection): boolean => s.kind === 'GENERAL_ADMISSION' || s.sellBy === 'QUANTITY';
/** The sections drawn on the seat map: seated, sold seat by seat. */
export const mapSections = (sections: readonly ShowSection[]): Section[] =>
  sections.filter((s): s is Section => s.kind !== 'GENERAL_ADMISSION' && s.sellBy !== 'QUANTITY');
export const capacityOf = (s: ShowSection): number => (s.kind === 'GENERAL_ADMISSION' ? s.capacity : s.rows * s.seatsPerRow);

/** What is left of one section (the seat map's `sections`, and the live stream's). */
export interface SectionAvailability {
  readonly id: string;
  readonly available: number;
  readonly capacity?: number;
  readonly kind?: string;
}

export interface Show {
  readonly showId: string;
  readonly title: string;
  readonly description?: string;
  readonly imageUrl?: string | null;
  /** ISO 4217 code of every price of the show. */
  readonly currency?: string;
  /** In the list: seats and places left in all sections (null when the server does not know without a store read). */
  readonly available?: number | null;
  readonly venue: string;
  readonly city: string;
  readonly startsAt: string;
  readonly saleStartsAt: string;
  readonly saleEndsAt: string;
  readonly status: 'UPCOMING' | 'ON_SALE' | 'ENDED';
  readonly secondsRemaining: number;
  readonly capacity: number;
  /** Hours before the start a buyer may still refund / exchange; null: not by the buyer. */
  readonly refundUntilHoursBefore?: number | null;
  readonly exchangeUntilHoursBefore?: number | null;
  /** Cancelled by the organizer (status ENDED then), with the reason buyers are told. */
  readonly cancelled?: boolean;
  readonly cancelReason?: string | null;
  readonly sections: readonly ShowSection[];
  readonly seatCounts?: Readonly<Record<string, number>>;
  /** Where the map draws each section and the stage (GET /shows/{id}); older servers send none. */
  readonly geometry?: VenueGeometry;
}

/**
 * The server's venue geometry, in seat cells: seat n of row r of a section is the cell
 * (x + n - 1, y + r - 1); the stage's front edge runs from stage.x to stage.x + stage.width at
 * stage.y. Best available measures each seat's distance to the stage on this same picture.
 */
export interface VenueGeometry {
  readonly cols: number;
  readonly rows: number;
  readonly stage: { readonly x: number; readonly y: number; readonly width: number };
  readonly sections: readonly { readonly id: string; readonly x: number; readonly y: number }[];
}

export interface Hold {
  readonly holdId: string;
  readonly showId: string;
  readonly seatIds: readonly string[];
  /** Places of counted sections come as UNITS lines (seatIds is then empty). */
  readonly lines?: readonly ({ readonly kind: 'SEATS'; readonly sectionId: string; readonly seatIds: readonly string[] } | { readonly kind: 'UNITS'; readonly sectionId: string; readonly quantity: number })[];
  readonly totalPriceCents: number;
  readonly status: string;
  readonly expiresAt: string;
}

export interface Ticket {
  readonly ticketId: string;
  readonly orderId: string;
  readonly showId: string;
  /** null for a general-admission place. */
  readonly seatId: string | null;
  readonly code: string;
  readonly status: 'VALID' | 'USED' | 'INVALID';
  readonly qr: string;
  /** The section of the place (older servers send none). */
  readonly sectionId?: string;
  /** What was paid for it, what refunding it gives back (absent on tickets issued before it was stored). */
  readonly paidCents?: number;
}

export interface Order {
  readonly orderId: string;
  /** What the order sells; older servers send none (a show's order). */
  readonly kind?: 'SHOW' | 'FLASH_SALE' | 'BARGAIN';
  /** The show or campaign sold. */
  readonly activityId?: string;
  /** The show, for a show's order; null for a campaign's (see activityId). */
  readonly showId: string | null;
  readonly holdId: string;
  readonly seatIds: readonly string[];
  readonly status: 'INIT' | 'PENDING_PAY' | 'PAID' | 'TICKETED' | 'CANCELLED' | 'REFUNDED' | 'REFUND_PENDING';
  readonly amountCents: number;
  /** What refunds gave back so far (older servers send none). */
  readonly refundedCents?: number;
  readonly tickets?: readonly Ticket[];
  /** Only in the answer that opened the payment, when the provider has a hosted page (Stripe Checkout): the buyer pays there. */
  readonly checkoutUrl?: string;
  readonly contact?: OrderContact;
  readonly discount?: { readonly code: string; readonly discountCents: number };
}

export interface OrderContact {
  readonly name: string;
  readonly phone: string;
  readonly email: string;
}

/** One refund of (part of) an order (issue 25). */
export interface Refund {
  readonly refundId: string;
  readonly amountCents: number;
  readonly ticketIds: readonly string[];
  readonly whole: boolean;
  readonly status: 'PENDING' | 'REFUNDED' | 'REFUSED';
  readonly reason: string | null;
  readonly createdAt: string;
}

/** A show's cancellation as GET /admin/shows/{id}/cancellation answers it. */
export interface Cancellation {
  readonly showId: string;
  readonly reason: string;
  readonly ordersToRefund: number;
  readonly ordersByStatus: Readonly<Record<string, number>>;
  readonly refundsByStatus: Readonly<Record<string, number>>;
  readonly activeHolds: number;
  readonly done: boolean;
}

export type ActivityKind = 'SHOW' | 'FLASH_SALE' | 'CODE_POOL' | 'BARGAIN';
export type ActivityStatus = 'UPCOMING' | 'ON_SALE' | 'SOLD_OUT' | 'ENDED' | 'OFFLINE' | 'CANCELLED';

/** One row of GET /activities: shows and campaigns together, with the server's countdowns. */
export interface Activity {
  readonly activityId: string;
  readonly kind: ActivityKind;
  readonly title: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: string;
  readonly saleEndsAt: string;
  readonly status: ActivityStatus;
  readonly secondsToStart: number;
  readonly secondsToEnd: number;
  /** A cancelled show's reason (status CANCELLED); older servers send none. */
  readonly cancelReason?: string | null;
}

export interface FlashSaleItem {
  readonly itemId: string;
  readonly name: string;
  readonly priceCents: number;
  readonly originalPriceCents: number;
  readonly stock: number;
  readonly available: number;
  readonly sold: number;
}

export interface FlashSale extends Activity {
  readonly flashSaleId: string;
  readonly description: string;
  readonly currency: string;
  readonly maxPerUser: number;
  readonly items: readonly FlashSaleItem[];
}

export interface Bargain extends Activity {
  readonly bargainId: string;
  readonly description: string;
  readonly currency: string;
  readonly goods: string;
  readonly originalPriceCents: number;
  readonly floorPriceCents: number;
  readonly cutMinCents: number;
  readonly cutMaxCents: number;
  readonly minCuts: number;
  readonly stock: number;
  readonly available: number;
}

export interface BargainOrder {
  readonly bargainOrderId: string;
  readonly bargainId: string;
  readonly title: string;
  readonly goods: string;
  readonly currency: string;
  readonly originalPriceCents: number;
  readonly floorPriceCents: number;
  readonly currentPriceCents: number;
  readonly minCuts: number;
  readonly cuts: number;
  readonly status: 'CUTTING' | 'READY' | 'ORDERED' | 'LAPSED';
  readonly orderId: string | null;
  readonly shareUrl: string;
  readonly saleEndsAt: string;
  readonly mine: boolean | null;
  readonly cutByMe: boolean | null;
  readonly cutList: readonly { readonly helperName: string; readonly amountCents: number; readonly cutAt: string }[];
}

/** Where a catalog row opens: a show's seat map, or the campaign's own page. */
export const activityHref = (a: Pick<Activity, 'activityId' | 'kind'>): string =>
  a.kind === 'SHOW' ? `/shows/${encodeURIComponent(a.activityId)}`
    : a.kind === 'FLASH_SALE' ? `/flash-sales/${encodeURIComponent(a.activityId)}`
      : a.kind === 'BARGAIN' ? `/bargains/${encodeURIComponent(a.activityId)}`
        : a.kind === 'CODE_POOL' ? `/codes/${encodeURIComponent(a.activityId)}`
          : `/activities/${encodeURIComponent(a.activityId)}`;
