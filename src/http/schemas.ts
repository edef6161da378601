import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { contactLimits, discountLimits, limits, policyHoursMax, type CheckInOutcome, type SettlementOutcome } from '../domain/index.js';
import { errorResponse } from './openapi.js';

/** Request and response schemas: they validate input, shape output, and generate docs/openapi. */
export const ErrorBody = Type.Object(
  { code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { $id: 'Error', description: 'Every error: a stable machine-readable code and a human message' },
);

export const errorResponses = (...statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries(statuses.map((s) => [s, errorResponse(s)]));

const id = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description });
export const SeatId = Type.String({ minLength: 1, maxLength: limits.seatIdLengthMax, pattern: '^[A-Za-z0-9_-]+$' });
const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant' });
const Label = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const Credentials = Type.Object(
  {
    username: Type.String({ minLength: limits.usernameLengthMin, maxLength: limits.usernameLengthMax, pattern: '^[A-Za-z0-9_.@-]+$' }),
    password: Type.String({ minLength: limits.passwordLengthMin, maxLength: limits.passwordLengthMax }),
  },
  { additionalProperties: false },
);

export const SectionId = Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$' });

const Price = Type.Integer({ minimum: 0, maximum: limits.priceCentsMax, description: 'Price of one seat or place of this section (a price tier), integer cents' });

/** A seated section; `kind` and `sellBy` may be left out (today's bodies: SEATED, sold by SEAT). */
const SeatedSection = Type.Object(
  {
    id: SectionId,
    name: Label(80),
    kind: Type.Optional(Type.Literal('SEATED', { description: 'Rows of numbered seats (the default)' })),
    rows: Type.Integer({ minimum: 1, maximum: limits.rowsPerSectionMax }),
    seatsPerRow: Type.Integer({ minimum: 1, maximum: limits.seatsPerRowMax }),
    priceCents: Price,
    sellBy: Type.Optional(Type.Union([Type.Literal('SEAT'), Type.Literal('QUANTITY')], {
      description: 'SEAT (default): seats are held one by one. QUANTITY: a count is held, and the seats nearest the front-centre, together where possible, are picked when the tickets are issued',
    })),
    accessible: Type.Optional(Type.Array(
      Type.Object(
        { row: Type.Integer({ minimum: 1, maximum: limits.rowsPerSectionMax }), number: Type.Integer({ minimum: 1, maximum: limits.seatsPerRowMax }) },
        { additionalProperties: false },
      ),
      { maxItems: limits.accessibleSeatsPerSectionMax, description: 'Seats suited to wheelchair users (marked in the seat map; best-available can ask for them)' },
    )),
  },
  { additionalProperties: false, title: 'Seated section' },
);

/** Standing room: a capacity, no seats. */
const GeneralAdmissionSection = Type.Object(
  {
    id: SectionId,
    name: Label(80),
    kind: Type.Literal('GENERAL_ADMISSION'),
    capacity: Type.Integer({ minimum: 1, maximum: limits.seatsPerShowMax }),
    priceCents: Price,
  },
  { additionalProperties: false, title: 'General admission section' },
);

export const Section = Type.Union([SeatedSection, GeneralAdmissionSection], { description: 'A seated section, or a general-admission (counted) one' });
export type SectionBody = Static<typeof Section>;

const Description = Type.String({ maxLength: limits.showDescriptionLengthMax, description: 'What the buyer reads about the show (plain text)' });
const ImageUrl = Type.String({
  minLength: 9, maxLength: limits.imageUrlLengthMax, pattern: '^https://', description: 'An https address of a picture of the show (shown on its card)',
});
/** Letters only here; whether the code is a currency at all is the domain's check (INVALID_SHOW_DETAILS). */
const PolicyHours = (what: string) => Type.Integer({
  minimum: 0, maximum: policyHoursMax,
  description: `A buyer may ${what} until this many hours before the show starts; absent or null: not by the buyer (admins always may)`,
});
/**
 * The same, or null to take the policy away. One schema with `nullable`, not a union with null:
 * the validator coerces types (for querystrings), and a union's integer branch read a null as 0,
 * so clearing a policy set it to "until the start" instead (issue 35).
 */
const NullablePolicyHours = (what: string) => Type.Unsafe<number | null>({ ...PolicyHours(what), nullable: true });

const Currency = Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of every price of the show; default TICKETRUSH_CURRENCY (CNY)' });

export const NewShowBody = Type.Object(
  {
    title: Label(limits.titleLengthMax),
    description: Type.Optional(Description),
    imageUrl: Type.Optional(ImageUrl),
    currency: Type.Optional(Currency),
    venue: Label(limits.titleLengthMax),
    city: Label(80),
    startsAt: Instant,
    saleStartsAt: Instant,
    saleEndsAt: Instant,
    seatMap: Type.Object({ sections: Type.Array(Section, { minItems: 1, maxItems: limits.sectionsPerShowMax }) }, { additionalProperties: false }),
    refundUntilHoursBefore: Type.Optional(PolicyHours('refund')),
    exchangeUntilHoursBefore: Type.Optional(PolicyHours('exchange')),
    maxSeatsPerUser: Type.Optional(Type.Integer({
      minimum: 1,
      maximum: limits.seatsPerShowMax,
      description: "Seats one buyer may hold and buy of this show, 1 up to the show's capacity; default TICKETRUSH_MAX_SEATS_PER_USER (10)",
    })),
  },
  { additionalProperties: false },
);
export type NewShowBody = Static<typeof NewShowBody>;

/** Any of a show's words and times; what is left out stays. `imageUrl: null` removes the picture. */
export const ShowEditBody = Type.Object(
  {
    title: Type.Optional(Label(limits.titleLengthMax)),
    description: Type.Optional(Description),
    imageUrl: Type.Optional(Type.Union([ImageUrl, Type.Null()])),
    venue: Type.Optional(Label(limits.titleLengthMax)),
    city: Type.Optional(Label(80)),
    startsAt: Type.Optional(Instant),
    saleStartsAt: Type.Optional(Instant),
    saleEndsAt: Type.Optional(Instant),
    refundUntilHoursBefore: Type.Optional(NullablePolicyHours('refund')),
    exchangeUntilHoursBefore: Type.Optional(NullablePolicyHours('exchange')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ShowEditBody = Static<typeof ShowEditBody>;

export const ShowParams = Type.Object({ showId: id('show id') });
export const HoldParams = Type.Object({ holdId: id('hold id') });
export const OrderParams = Type.Object({ orderId: id('order id') });
export const TicketParams = Type.Object({ ticketId: id('ticket id') });
// Both are optional on the wire and always present after validation (the defaults fill them in),
// which is what the static type says.
export const PageQuery = Type.Unsafe<{ limit: number; offset: number }>(Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Items to skip' })),
}));

export const HoldBody = Type.Union(
  [
    Type.Object(
      {
        seatIds: Type.Array(SeatId, { minItems: 1, maxItems: limits.seatIdsPerRequestMax }),
        holdSeconds: Type.Optional(Type.Integer({ minimum: limits.holdTtlSecondsMin, maximum: limits.holdTtlSecondsMax })),
      },
      { additionalProperties: false, title: 'Specific seats' },
    ),
    Type.Object(
      {
        quantity: Type.Integer({ minimum: 1, maximum: limits.seatIdsPerRequestMax }),
        adjacent: Type.Optional(Type.Boolean({ description: 'false allows scattered seats when no adjacent run is free' })),
        section: Type.Optional(SectionId),
        near: Type.Optional(
          Type.Object(
            {
              section: SectionId,
              row: Type.Integer({ minimum: 1, maximum: limits.rowsPerSectionMax }),
              number: Type.Integer({ minimum: 1, maximum: limits.seatsPerRowMax }),
            },
            { additionalProperties: false, description: 'Sit nearest this seat position instead of the front-centre' },
          ),
        ),
        accessible: Type.Optional(Type.Integer({ minimum: 0, maximum: limits.seatsPerHoldMax, description: 'How many of the seats must be accessible seats' })),
        holdSeconds: Type.Optional(Type.Integer({ minimum: limits.holdTtlSecondsMin, maximum: limits.holdTtlSecondsMax })),
      },
      {
        additionalProperties: false,
        title: 'Best available, or a quantity of a counted section',
        description: 'With `section` naming a general-admission section (or one sold by QUANTITY), holds that many places, all or nothing, e.g. {"section":"GA","quantity":4}',
      },
    ),
  ],
  { description: 'Either specific seats, or a quantity: best-available seats, or places of a counted section' },
);
export type HoldBody = Static<typeof HoldBody>;

const Line = Type.Union([
  Type.Object({ kind: Type.Literal('SEATS'), sectionId: Type.String(), seatIds: Type.Array(Type.String()) }, { title: 'Seats' }),
  Type.Object({ kind: Type.Literal('UNITS'), sectionId: Type.String(), quantity: Type.Integer() }, { title: 'Units of a counted section' }),
], { description: 'A reservation line: specific seats of a section, or a quantity of a counted section' });

export const HoldResponse = Type.Object({
  holdId: Type.String(),
  showId: Type.String(),
  seatIds: Type.Array(Type.String(), { description: 'The specific seats held (empty for places of a counted section: see lines)' }),
  lines: Type.Array(Line),
  totalPriceCents: Type.Integer(),
  status: Type.String(),
  expiresAt: Type.String(),
  extensions: Type.Integer({ description: 'How many times the hold has been extended' }),
  adjacent: Type.Optional(Type.Boolean({ description: 'Whether the seats sit side by side in one row (on a new hold)' })),
  extensionsMax: Type.Optional(Type.Integer({ description: 'How many extensions a hold may have in all (`extensions` were used)' })),
  latestExpiresAt: Type.Optional(Type.String({ description: 'No extension takes the hold past this time (its total life cap)' })),
});

export const MyHoldsQuery = Type.Unsafe<{ limit: number; offset: number }>(Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.myHoldsPageSizeMax, default: limits.myHoldsPageSizeMax, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Items to skip' })),
}));

export const MyHoldResponse = Type.Object({
  ...HoldResponse.properties,
  extensionsMax: Type.Integer({ description: 'How many extensions a hold may have in all (`extensions` were used)' }),
  latestExpiresAt: Type.String({ description: 'No extension takes the hold past this time (its total life cap)' }),
  show: Type.Object({ showId: Type.String(), title: Type.String(), startsAt: Type.String(), venue: Type.String(), city: Type.String() }),
});

export const ExtendHoldBody = Type.Optional(
  Type.Object(
    { seconds: Type.Optional(Type.Integer({ minimum: limits.holdTtlSecondsMin, maximum: limits.holdTtlSecondsMax, description: 'Defaults to the configured hold length' })) },
    { additionalProperties: false },
  ),
);

export const ContactSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: contactLimits.nameLengthMax, description: 'Who to contact about the order' }),
  phone: Type.String({ minLength: 5, maxLength: contactLimits.phoneLengthMax, description: 'Digits, spaces, ( ) - and an optional leading +' }),
  email: Type.String({ minLength: 3, maxLength: contactLimits.emailLengthMax }),
}, { additionalProperties: false });

export const OrderBody = Type.Object({
  holdId: id('hold id'),
  discountCode: Type.Optional(Type.String({ minLength: 1, maxLength: discountLimits.codeLengthMax, description: 'A discount code; the server prices the order with it (409 DISCOUNT_* when it does not apply)' })),
  contact: Type.Optional(ContactSchema),
}, { additionalProperties: false });

export const idempotencyKeyPattern = '^[A-Za-z0-9._:-]+$';
export const OrderHeaders = Type.Object({
  'x-idempotency-key': Type.String({
    minLength: 1,
    maxLength: limits.idempotencyKeyLengthMax,
    pattern: idempotencyKeyPattern,
    description: 'Required. Scoped to the signed-in user: the same key and body replay the first answer; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED',
  }),
});

/** A hold's optional request key (seed 002 §5): a retried hold never takes stock twice. */
/** An optional X-Idempotency-Key header (holds, exchanges), described for its route. */
const optionalKeyHeaders = (description: string) => Type.Object({
  'x-idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: limits.idempotencyKeyLengthMax, pattern: idempotencyKeyPattern, description })),
});

export const HoldHeaders = optionalKeyHeaders('Optional. Scoped to the signed-in user: the same key and body answer the same hold (201, idempotent-replayed: true), never a second one; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, 409 IDEMPOTENCY_REQUEST_IN_FLIGHT');

export const ExchangeHeaders = optionalKeyHeaders('Optional. Scoped to the signed-in user: the same key and body answer the first exchange again (201, idempotent-replayed: true), never a second one; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, 409 IDEMPOTENCY_REQUEST_IN_FLIGHT. A refused exchange changed nothing and frees the key');

export const OrderResponse = Type.Object({
  orderId: Type.String(),
  kind: Type.Union([Type.Literal('SHOW'), Type.Literal('FLASH_SALE'), Type.Literal('BARGAIN')], { description: 'What the order sells: a show\'s seats or places, a flash sale\'s items, a bargain\'s goods' }),
  activityId: Type.String({ description: 'The show (kind SHOW: its showId) or the campaign sold' }),
  showId: Type.Union([Type.String(), Type.Null()], { description: 'The show, for kind SHOW; null for a campaign\'s order (see activityId)' }),
  holdId: Type.String({ description: 'The hold that carries the seats or units until paid (a campaign\'s order has one too)' }),
  seatIds: Type.Array(Type.String(), { description: 'Specific seats (kind SHOW); empty otherwise' }),
  lines: Type.Array(Line, { description: 'Kind SHOW: seats or places of sections; FLASH_SALE: one UNITS line whose sectionId is the itemId' }),
  status: Type.String(),
  amountCents: Type.Integer(),
  paymentId: Type.Union([Type.String(), Type.Null()]),
  refundedCents: Type.Integer({ description: 'What refunds have given back so far (a whole refund: status REFUNDED)' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  checkoutUrl: Type.Optional(Type.String({ description: 'Present when the payment provider has a hosted page (Stripe Checkout): send the buyer there to pay' })),
  contact: Type.Optional(ContactSchema),
  discount: Type.Optional(Type.Object({ code: Type.String(), discountCents: Type.Integer({ description: 'Taken off the price; amountCents is net of it' }) })),
});

export const RefundBody = Type.Object({
  ticketIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    minItems: 1, maxItems: 1000, description: 'The tickets to refund; absent: every ticket still valid (the whole order)',
  })),
}, { additionalProperties: false });

export const RefundResponse = Type.Object({
  refundId: Type.String(),
  orderId: Type.String(),
  showId: Type.String(),
  amountCents: Type.Integer(),
  ticketIds: Type.Array(Type.String()),
  whole: Type.Boolean({ description: 'The whole order (it is REFUND_PENDING, then REFUNDED)' }),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('REFUNDED'), Type.Literal('REFUSED')]),
  reason: Type.Union([Type.String(), Type.Null()], { description: "Why the provider refused it; 'exchange difference' for the refund of a cheaper exchange's difference (no tickets)" }),
  requestedBy: Type.Union([Type.Literal('BUYER'), Type.Literal('ORGANIZER')]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const TicketResponse = Type.Object({
  ticketId: Type.String(),
  orderId: Type.String(),
  showId: Type.String(),
  sectionId: Type.String(),
  seatId: Type.Union([Type.String(), Type.Null()], { description: 'null for general admission' }),
  code: Type.String(),
  status: Type.String(),
  issuedAt: Type.String(),
  usedAt: Type.Union([Type.String(), Type.Null()]),
  qr: Type.String({ description: 'Signed QR payload (Ed25519); verify with GET /api/v1/tickets/public-key' }),
  paidCents: Type.Optional(Type.Integer({
    description: "What was paid for this ticket: its share of the order's charge after discount (largest remainder, line order); what refunding it gives back. Absent on tickets issued before it was stored.",
  })),
});

export const PaymentCallbackBody = Type.Object(
  {
    paymentId: Type.String({ minLength: 1, maxLength: 128 }),
    orderId: id('order id'),
    status: Type.Union([Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]),
    amountCents: Type.Integer({ minimum: 0, maximum: limits.priceCentsMax * limits.seatsPerHoldMax }),
  },
  { additionalProperties: false },
);

export const SandboxPayBody = Type.Object(
  { outcome: Type.Optional(Type.Union([Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], { description: 'default SUCCEEDED' })) },
  { additionalProperties: false },
);

const checkInOutcomes = ['ADMITTED', 'ALREADY_ADMITTED_SAME_SCAN'] as const satisfies readonly CheckInOutcome[];
// Fails to compile when the domain gains an outcome this list (and so the document) lacks.
const everyCheckInOutcome: Exclude<CheckInOutcome, (typeof checkInOutcomes)[number]> extends never ? true : never = true;
void everyCheckInOutcome;
export const CheckInOutcomeSchema = Type.Unsafe<CheckInOutcome>({
  type: 'string',
  enum: [...checkInOutcomes],
  description: 'ADMITTED: let them in. ALREADY_ADMITTED_SAME_SCAN: the same scan (same nonce) retried; they were admitted by it',
});

const settlementOutcomes = ['SOLD', 'SOLD_LATE', 'REFUND_REQUIRED', 'CANCELLED', 'DUPLICATE', 'AMOUNT_MISMATCH'] as const satisfies readonly SettlementOutcome[];
const everySettlementOutcome: Exclude<SettlementOutcome, (typeof settlementOutcomes)[number]> extends never ? true : never = true;
void everySettlementOutcome;
export const SettlementOutcomeSchema = Type.Unsafe<SettlementOutcome>({
  type: 'string',
  enum: [...settlementOutcomes],
  description: 'What the callback did (AMOUNT_MISMATCH: acknowledged, the money goes back); see docs/api.md, Payment callbacks',
});

const checkInScanFields = {
  nonce: Type.Optional(Type.String({
    minLength: 1, maxLength: 64,
    description: 'Scanner-chosen; a retried scan with the same nonce from the same account, gate and device is not a second use',
  })),
  gate: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The entrance scanning; binds the nonce to it' })),
  deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The scanning device; binds the nonce to it' })),
};
/** Either the QR payload, or the short code printed on the ticket with the show being checked. */
export const CheckInBody = Type.Union([
  Type.Object({ qr: Type.String({ minLength: 1, maxLength: 1024, description: 'The signed QR payload' }), ...checkInScanFields }, { additionalProperties: false }),
  Type.Object({
    code: Type.String({
      minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9 -]+$',
      description: 'The 12-character code printed on the ticket (case, spaces and dashes ignored); unknown in this show: TICKET_INVALID',
    }),
    showId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The show the door is checking' }),
    ...checkInScanFields,
  }, { additionalProperties: false }),
]);

export const RoleBody = Type.Object(
  { role: Type.Union([Type.Literal('BUYER'), Type.Literal('STAFF'), Type.Literal('ADMIN')]) },
  { additionalProperties: false },
);
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: limits.usernameLengthMax }) });
