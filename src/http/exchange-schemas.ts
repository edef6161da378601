import { Type, type Static } from '@sinclair/typebox';
import { limits } from '../domain/index.js';
import { OrderResponse, SeatId, SectionId, TicketResponse } from './schemas.js';

const ShowId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The show of the new seats; the order\'s own show when absent' });

export const ExchangeBody = Type.Union(
  [
    Type.Object(
      { showId: Type.Optional(ShowId), seatIds: Type.Array(SeatId, { minItems: 1, maxItems: limits.seatIdsPerRequestMax }) },
      { additionalProperties: false, title: 'Specific new seats' },
    ),
    Type.Object(
      {
        showId: Type.Optional(ShowId),
        section: SectionId,
        quantity: Type.Integer({ minimum: 1, maximum: limits.seatIdsPerRequestMax }),
      },
      { additionalProperties: false, title: 'A quantity of a section (best-available seats, or general-admission places)' },
    ),
  ],
  { description: 'The new seats: specific seats, or section + quantity; on the order\'s show or another (showId)' },
);
export type ExchangeBody = Static<typeof ExchangeBody>;

export const ExchangeResponse = Type.Object({
  exchange: Type.Object({
    exchangeId: Type.String(),
    oldOrderId: Type.String(),
    oldTicketIds: Type.Array(Type.String()),
    newOrderId: Type.String(),
    newShowId: Type.String(),
    differenceCents: Type.Integer(),
    createdAt: Type.String(),
  }),
  order: OrderResponse,
  tickets: Type.Array(TicketResponse),
}, { description: 'The exchange done: the new order (TICKETED) and its tickets; the old tickets are INVALID' });
