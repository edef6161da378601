import { Type } from '@sinclair/typebox';
import { activityStatuses, bargainLimits, limits } from '../domain/index.js';

/** Request and answer shapes of bargains (issue 23 item 4, seed 001 砍价). */
const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant' });
const Title = Type.String({ minLength: 1, maxLength: limits.titleLengthMax });
const Cents = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: limits.priceCentsMax, description: `${description}, integer cents (${minimum} to ${limits.priceCentsMax})` });
const IdParam = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

export const BargainParams = Type.Object({ bargainId: IdParam });
export const BargainOrderParams = Type.Object({ bargainOrderId: IdParam });

export const NewBargainBody = Type.Object({
  title: Title,
  description: Type.Optional(Type.String({ maxLength: limits.showDescriptionLengthMax, description: 'What the buyer reads (plain text)' })),
  imageUrl: Type.Optional(Type.String({ minLength: 9, maxLength: limits.imageUrlLengthMax, pattern: '^https://', description: 'An https address of a picture' })),
  goods: Title,
  originalPriceCents: Cents('The price a bargain order starts at', 1),
  floorPriceCents: Cents('The lowest price friends can cut it to; below originalPriceCents'),
  cutMinCents: Cents('The smallest random cut', 1),
  cutMaxCents: Cents('The largest random cut; at least cutMinCents', 1),
  minCuts: Type.Integer({ minimum: 1, maximum: bargainLimits.minCutsMax, description: 'Cuts after which the buyer may order above the floor' }),
  stock: Type.Integer({ minimum: 1, maximum: bargainLimits.stockMax, description: 'Units that can be ordered' }),
  saleStartsAt: Instant,
  saleEndsAt: Instant,
}, { additionalProperties: false });

const timing = {
  status: Type.Union(activityStatuses.map((s) => Type.Literal(s))),
  secondsToStart: Type.Integer({ minimum: 0 }),
  secondsToEnd: Type.Integer({ minimum: 0 }),
};

export const BargainResponse = Type.Object({
  bargainId: Type.String(),
  activityId: Type.String(),
  kind: Type.Literal('BARGAIN'),
  title: Type.String(),
  description: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  goods: Type.String(),
  originalPriceCents: Type.Integer(),
  floorPriceCents: Type.Integer(),
  cutMinCents: Type.Integer(),
  cutMaxCents: Type.Integer(),
  minCuts: Type.Integer(),
  stock: Type.Integer(),
  available: Type.Integer({ description: 'Units not taken by a live order or sold' }),
  saleStartsAt: Type.String(),
  saleEndsAt: Type.String(),
  ...timing,
});

export const StartedBargainResponse = Type.Object({
  bargainOrderId: Type.String(),
  currentPriceCents: Type.Integer(),
  cuts: Type.Integer({ minimum: 0 }),
  shareUrl: Type.String({ description: 'The web page where friends cut this bargain order (a path on this site)' }),
});

export const CutResponse = Type.Object({
  amountCents: Type.Integer({ minimum: 0, description: 'What this cut took off (the random draw, clamped so the price stays at or above the floor)' }),
  currentPriceCents: Type.Integer(),
  cuts: Type.Integer({ minimum: 1 }),
});

export const BargainOrderResponse = Type.Object({
  bargainOrderId: Type.String(),
  bargainId: Type.String(),
  title: Type.String(),
  goods: Type.String(),
  currency: Type.String(),
  originalPriceCents: Type.Integer(),
  floorPriceCents: Type.Integer(),
  currentPriceCents: Type.Integer(),
  minCuts: Type.Integer(),
  cuts: Type.Integer(),
  status: Type.Union([Type.Literal('CUTTING'), Type.Literal('READY'), Type.Literal('ORDERED'), Type.Literal('LAPSED')], {
    description: 'CUTTING until the floor or minCuts is reached, then READY to order; ORDERED once ordered; LAPSED after the sale ends',
  }),
  orderId: Type.Union([Type.String(), Type.Null()]),
  shareUrl: Type.String(),
  saleEndsAt: Type.String(),
  mine: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the caller (bearer token) started it; null when anonymous' }),
  cutByMe: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the caller has cut it; null when anonymous' }),
  cutList: Type.Array(Type.Object({ helperName: Type.String(), amountCents: Type.Integer(), cutAt: Type.String() }), {
    maxItems: bargainLimits.cutsListedMax, description: 'Every cut, oldest first',
  }),
});
