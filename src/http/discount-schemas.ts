import { Type } from '@sinclair/typebox';
import { discountLimits } from '../domain/index.js';

const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant' });
const CodeText = Type.String({ minLength: 3, maxLength: discountLimits.codeLengthMax, pattern: '^[A-Za-z0-9_-]+$', description: 'Letters, digits, _ or -; matched case-insensitively' });

export const NewDiscountBody = Type.Object({
  code: CodeText,
  percentOff: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Give this or amountOffCents' })),
  amountOffCents: Type.Optional(Type.Integer({ minimum: 1, maximum: discountLimits.amountOffCentsMax })),
  showIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: discountLimits.showIdsMax, description: 'Only these shows; absent or empty: every show' })),
  validFrom: Instant,
  validUntil: Instant,
  maxUses: Type.Integer({ minimum: 1, maximum: discountLimits.maxUsesMax, description: 'Orders that may hold a use at once (a cancelled unpaid order gives its use back)' }),
  perUserMax: Type.Integer({ minimum: 1, maximum: discountLimits.perUserMaxMax }),
}, { additionalProperties: false });

export const DiscountParams = Type.Object({ code: CodeText });

export const DiscountResponse = Type.Object({
  code: Type.String(),
  percentOff: Type.Union([Type.Integer(), Type.Null()]),
  amountOffCents: Type.Union([Type.Integer(), Type.Null()]),
  showIds: Type.Union([Type.Array(Type.String()), Type.Null()]),
  validFrom: Type.String(),
  validUntil: Type.String(),
  maxUses: Type.Integer(),
  perUserMax: Type.Integer(),
  uses: Type.Integer({ description: 'Orders holding a use now' }),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')]),
  createdAt: Type.String(),
});
