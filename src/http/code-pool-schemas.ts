import { Type } from '@sinclair/typebox';
import { limits } from '../domain/index.js';

/** Schemas of the code-pool routes (issue 23 item 3). */
const Instant = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant' });

export const PoolParams = Type.Object({ poolId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'code pool id' }) });

export const NewCodePoolBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: limits.titleLengthMax }),
  description: Type.Optional(Type.String({ maxLength: limits.showDescriptionLengthMax, description: 'What the buyer reads about the campaign (plain text)' })),
  imageUrl: Type.Optional(Type.String({ minLength: 9, maxLength: limits.imageUrlLengthMax, pattern: '^https://', description: 'An https address of a picture' })),
  saleStartsAt: Instant,
  saleEndsAt: Instant,
}, { additionalProperties: false });

/** Codes per JSON import: the 64 KB body limit bounds it anyway; larger lists go as CSV. */
export const jsonCodesMax = 10_000;

export const ImportCodesJson = Type.Object({
  codes: Type.Array(Type.String({ maxLength: 4096, description: 'a code: over 128 characters or with a control character it is rejected and counted' }), { maxItems: jsonCodesMax }),
}, { additionalProperties: false });

export const ImportCounts = Type.Object({
  imported: Type.Integer({ description: 'codes new to the pool, stored' }),
  duplicates: Type.Integer({ description: 'codes already in the pool, or repeated in the upload' }),
  rejected: Type.Integer({ description: 'codes over 128 characters or with control characters: counted, never stored' }),
});

export const GrabbedCode = Type.Object({ code: Type.String(), grabbedAt: Instant });

export const CodePoolDetail = Type.Object({
  poolId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  saleStartsAt: Instant,
  saleEndsAt: Instant,
  status: Type.Union([Type.Literal('UPCOMING'), Type.Literal('ON_SALE'), Type.Literal('ENDED')]),
  secondsRemaining: Type.Integer({ description: 'until the sale opens (UPCOMING) or closes (ON_SALE), by the server clock' }),
  imported: Type.Integer(),
  remaining: Type.Integer({ description: 'codes not handed out yet' }),
  participated: Type.Boolean({ description: 'the signed-in caller has a code of this pool (false without a token)' }),
  myCode: Type.Union([GrabbedCode, Type.Null()]),
});

export const MyCodes = Type.Object({
  codes: Type.Array(Type.Object({ poolId: Type.String(), poolTitle: Type.String(), code: Type.String(), grabbedAt: Instant })),
});
