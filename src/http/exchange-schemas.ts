import { Type, type Static } from '@sinclair/typebox';
import { limits } from '../domain/index.js';
import { OrderResponse, RefundResponse, SeatId, SectionId, TicketResponse } from './schemas.js';

const ShowId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The show of the new seats; the order\'s own show when absent' });

const TicketIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1, maxItems: 1000,
  description: 'The tickets to give up (a partial exchange; the others stay on the order); absent: every ticket still valid (the whole order)',
});

export const ExchangeBody = Type.Union(
  [
    Type.Object(
      { showId: Type.Optional(ShowId), seatIds: Type.Array(SeatId, { minItems: 1, maxItems: limits.seatIdsPerRequestMax }), ticketIds: Type.Optional(TicketIds) },
      { additionalProperties: false, title: 'Specific new seats' },
    ),
    Type.Object(
      {
        showId: Type.Optional(ShowId),
        section: SectionId,
        quantity: Type.Integer({ minimum: 1, maximum: limits.seatIdsPerRequestMax }),
        ticketIds: Type.Optional(TicketIds),
      },
      { additionalProperties: false, title: 'A quantity of a section (best-available seats, or general-admission places)' },
    ),
  ],
  { description: 'The new seats: specific seats, or section + quantity; on the order\'s show or another (showId); ticketIds for part of the order' },
);
export type ExchangeBody = Static<typeof ExchangeBody>;

export const ExchangeResponse = Type.Object({
  exchange: Type.Object({
    exchangeId: Type.String(),
    oldOrderId: Type.String(),
    oldTicketIds: Type.Array(Type.String()),
    newOrderId: Type.String(),
    newShowId: Type.String(),
    differenceCents: Type.Integer({ description: 'The new seats\' list price minus that of the tickets given up: 0 even, below 0 cheaper (refunded, see refund), above 0 dearer (paid on the new order\'s own payment)' }),
    status: Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED'), Type.Literal('ABANDONED')], {
      description: 'COMPLETED: swapped. PENDING: a dearer swap waiting for its difference to be paid (the old tickets stay VALID until then). ABANDONED: that payment was declined or never came; nothing changed',
    }),
    createdAt: Type.String(),
  }),
  refund: Type.Union([RefundResponse, Type.Null()], {
    description: 'A cheaper swap\'s difference going back to the payment that brought the money in (no tickets, reason \'exchange difference\'; PENDING until the provider confirms it; never more than the value carried); null for an even swap',
  }),
  order: OrderResponse,
  tickets: Type.Array(TicketResponse),
}, { description: 'The exchange done: the new order (TICKETED) and its tickets; the tickets given up are INVALID. A dearer swap (202): the new order PENDING_PAY for the difference, no tickets yet' });
