import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { limits } from '../domain/index.js';

/** Request and response schemas: they validate input, shape output, and generate docs/openapi. */
export const ErrorBody = Type.Object(
  { code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { $id: 'Error', description: 'Every error: a stable machine-readable code and a human message' },
);

export const errorResponses = (...statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));

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

const SectionId = Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$' });

export const Section = Type.Object(
  {
    id: SectionId,
    name: Label(80),
    rows: Type.Integer({ minimum: 1, maximum: limits.rowsPerSectionMax }),
    seatsPerRow: Type.Integer({ minimum: 1, maximum: limits.seatsPerRowMax }),
    priceCents: Type.Integer({ minimum: 0, maximum: limits.priceCentsMax }),
  },
  { additionalProperties: false },
);

export const NewShowBody = Type.Object(
  {
    title: Label(limits.titleLengthMax),
    venue: Label(limits.titleLengthMax),
    city: Label(80),
    startsAt: Instant,
    saleStartsAt: Instant,
    saleEndsAt: Instant,
    seatMap: Type.Object({ sections: Type.Array(Section, { minItems: 1, maxItems: limits.sectionsPerShowMax }) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type NewShowBody = Static<typeof NewShowBody>;

export const ShowParams = Type.Object({ showId: id('show id') });
export const HoldParams = Type.Object({ holdId: id('hold id') });
export const OrderParams = Type.Object({ orderId: id('order id') });
export const TicketParams = Type.Object({ ticketId: id('ticket id') });
export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
});

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
        holdSeconds: Type.Optional(Type.Integer({ minimum: limits.holdTtlSecondsMin, maximum: limits.holdTtlSecondsMax })),
      },
      { additionalProperties: false, title: 'Best available' },
    ),
  ],
  { description: 'Either specific seats, or a quantity to pick best-available seats' },
);
export type HoldBody = Static<typeof HoldBody>;

export const HoldResponse = Type.Object({
  holdId: Type.String(),
  showId: Type.String(),
  seatIds: Type.Array(Type.String()),
  totalPriceCents: Type.Integer(),
  status: Type.String(),
  expiresAt: Type.String(),
  extensions: Type.Integer({ description: 'How many times the hold has been extended' }),
  adjacent: Type.Optional(Type.Boolean({ description: 'Whether the seats sit side by side in one row (on a new hold)' })),
});

export const ExtendHoldBody = Type.Optional(
  Type.Object(
    { seconds: Type.Optional(Type.Integer({ minimum: limits.holdTtlSecondsMin, maximum: limits.holdTtlSecondsMax, description: 'Defaults to the configured hold length' })) },
    { additionalProperties: false },
  ),
);

export const OrderBody = Type.Object({ holdId: id('hold id') }, { additionalProperties: false });

export const OrderResponse = Type.Object({
  orderId: Type.String(),
  showId: Type.String(),
  holdId: Type.String(),
  seatIds: Type.Array(Type.String()),
  status: Type.String(),
  amountCents: Type.Integer(),
  paymentId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const TicketResponse = Type.Object({
  ticketId: Type.String(),
  orderId: Type.String(),
  showId: Type.String(),
  seatId: Type.String(),
  code: Type.String(),
  status: Type.String(),
  issuedAt: Type.String(),
  usedAt: Type.Union([Type.String(), Type.Null()]),
  qr: Type.String({ description: 'Signed QR payload (Ed25519); verify with GET /api/v1/tickets/public-key' }),
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

export const CheckInBody = Type.Object(
  {
    qr: Type.String({ minLength: 1, maxLength: 1024 }),
    nonce: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Scanner-chosen; a retried scan with the same nonce is not a second use' })),
  },
  { additionalProperties: false },
);

export const RoleBody = Type.Object(
  { role: Type.Union([Type.Literal('BUYER'), Type.Literal('STAFF'), Type.Literal('ADMIN')]) },
  { additionalProperties: false },
);
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: limits.usernameLengthMax }) });
