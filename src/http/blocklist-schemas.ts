import { Type } from '@sinclair/typebox';
import { limits } from '../domain/index.js';

const Reason = Type.String({ minLength: 1, maxLength: limits.blockReasonLengthMax, description: 'why (kept with the entry, shown to admins only)' });
const ExpiresAt = Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601; the entry stops blocking then. Absent: until lifted' });

/** {"username"} or {"ip"} (an address or a CIDR block), each with a reason and an optional expiry. */
export const NewBlockBody = Type.Union([
  Type.Object({
    username: Type.String({ minLength: 1, maxLength: limits.usernameLengthMax, description: 'the buyer to block; their active holds are released' }),
    reason: Reason,
    expiresAt: Type.Optional(ExpiresAt),
  }, { additionalProperties: false }),
  Type.Object({
    ip: Type.String({ minLength: 2, maxLength: 49, pattern: '^[0-9A-Fa-f:./]+$', description: 'an IPv4 or IPv6 address, or a CIDR block such as 203.0.113.0/24' }),
    reason: Reason,
    expiresAt: Type.Optional(ExpiresAt),
  }, { additionalProperties: false }),
]);

export const BlockParams = Type.Object({ blockId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'blocklist entry id' }) });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const BlockView = Type.Object({
  blockId: Type.String(),
  kind: Type.Union([Type.Literal('USER'), Type.Literal('IP')]),
  username: Nullable(Type.String({ description: 'USER: the blocked buyer' })),
  userId: Nullable(Type.String()),
  ip: Nullable(Type.String({ description: 'IP: the address or CIDR block, normalised' })),
  reason: Type.String(),
  createdBy: Type.String({ description: 'the admin who added it (user id)' }),
  createdAt: Type.String({ description: 'ISO 8601' }),
  expiresAt: Nullable(Type.String({ description: 'ISO 8601; null: until lifted' })),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('LIFTED')]),
  liftedAt: Nullable(Type.String()),
});
