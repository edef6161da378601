import { Type, type Static } from '@sinclair/typebox';
import { activityKinds, activityStatuses, flashSaleLimits, limits } from '../domain/index.js';
import { BargainResponse } from './bargain-schemas.js';

/** Request and answer shapes of the activity catalog and flash sales (issue 23). */
const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant' });
const Title = Type.String({ minLength: 1, maxLength: limits.titleLengthMax });
const Description = Type.String({ maxLength: limits.showDescriptionLengthMax, description: 'What the buyer reads (plain text)' });
const ImageUrl = Type.String({ minLength: 9, maxLength: limits.imageUrlLengthMax, pattern: '^https://', description: 'An https address of a picture' });
const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: limits.priceCentsMax, description: `${description}, integer cents (0 to ${limits.priceCentsMax})` });
const ItemId = Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$', description: '1-8 letters or digits, unique in the sale' });
const ActivityIdParam = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

export const ActivityParams = Type.Object({ activityId: ActivityIdParam });
export const FlashSaleParams = Type.Object({ flashSaleId: ActivityIdParam });

export const ActivitiesQuery = Type.Unsafe<{ limit: number; offset: number; include?: 'ended' }>(Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000, default: 0, description: 'Items to skip (at most 1,000)' })),
  include: Type.Optional(Type.Literal('ended', { description: '"ended": also ended and offline activities, after the live ones' })),
}, { additionalProperties: false }));

const Status = Type.Union(activityStatuses.map((s) => Type.Literal(s)), {
  description: 'SOLD_OUT: on sale with nothing left (shows); CANCELLED: a cancelled show (see cancelReason), its sale over',
});
const Kind = Type.Union(activityKinds.map((k) => Type.Literal(k)));
const timing = {
  status: Status,
  secondsToStart: Type.Integer({ minimum: 0, description: 'Seconds until the sale opens, from the server\'s clock; 0 once open' }),
  secondsToEnd: Type.Integer({ minimum: 0, description: 'Seconds until the sale closes, from the server\'s clock; 0 once closed' }),
};

export const ActivityResponse = Type.Object({
  activityId: Type.String({ description: 'For a show, its showId' }),
  kind: Kind,
  title: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  saleStartsAt: Type.String(),
  saleEndsAt: Type.String(),
  ...timing,
  cancelReason: Type.Union([Type.String(), Type.Null()], { description: 'A cancelled show\'s reason, as the organizer gave it; null when not cancelled' }),
});

const FlashSaleItem = Type.Object({
  itemId: Type.String(),
  name: Type.String(),
  priceCents: Type.Integer(),
  originalPriceCents: Type.Integer(),
  stock: Type.Integer(),
  available: Type.Integer({ description: 'Units not taken by a live order or sold' }),
  sold: Type.Integer(),
});

export const FlashSaleResponse = Type.Object({
  flashSaleId: Type.String(),
  activityId: Type.String(),
  kind: Type.Literal('FLASH_SALE'),
  title: Type.String(),
  description: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  saleStartsAt: Type.String(),
  saleEndsAt: Type.String(),
  maxPerUser: Type.Integer({ description: 'Units one buyer may have across their live orders of the sale' }),
  items: Type.Array(FlashSaleItem),
  ...timing,
});

export const ActivityDetailResponse = Type.Object({
  ...ActivityResponse.properties,
  description: Type.String(),
  participated: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the signed-in caller has taken part (an order of it); null when anonymous' }),
  flashSale: Type.Optional(FlashSaleResponse),
  bargain: Type.Optional(BargainResponse),
});

export const NewFlashSaleBody = Type.Object({
  title: Title,
  description: Type.Optional(Description),
  imageUrl: Type.Optional(ImageUrl),
  saleStartsAt: Instant,
  saleEndsAt: Instant,
  maxPerUser: Type.Integer({ minimum: 1, maximum: flashSaleLimits.maxPerUserMax, description: 'Units one buyer may have across their live orders of the sale' }),
  items: Type.Array(Type.Object({
    itemId: ItemId,
    name: Title,
    priceCents: Cents('The sale price of one unit'),
    originalPriceCents: Cents('The price before the sale (shown crossed out); at least priceCents'),
    stock: Type.Integer({ minimum: 1, maximum: flashSaleLimits.stockMax }),
  }, { additionalProperties: false }), { minItems: 1, maxItems: flashSaleLimits.itemsMax }),
}, { additionalProperties: false });
export type NewFlashSaleBody = Static<typeof NewFlashSaleBody>;

export const FlashOrderBody = Type.Object({
  itemId: ItemId,
  quantity: Type.Integer({ minimum: 1, maximum: flashSaleLimits.quantityMax }),
}, { additionalProperties: false });

export const ActivityChangeBody = Type.Object({
  title: Type.Optional(Title),
  description: Type.Optional(Description),
  imageUrl: Type.Optional(Type.Union([ImageUrl, Type.Null()])),
  saleEndsAt: Type.Optional(Instant),
  status: Type.Optional(Type.Union([Type.Literal('OFFLINE'), Type.Literal('ON_SALE')], { description: 'OFFLINE takes a campaign down at once; ON_SALE puts it back' })),
}, { additionalProperties: false, minProperties: 1 });
