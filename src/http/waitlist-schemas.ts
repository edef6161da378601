import { Type } from '@sinclair/typebox';
import { waitlistLimits, waitlistStatuses } from '../domain/index.js';
import { SectionId } from './schemas.js';

/** Bodies and answers of the waitlist routes (issue 25 item 5, 候补). */
export const JoinWaitlistBody = Type.Object({
  section: Type.Optional(SectionId),
  quantity: Type.Integer({ minimum: waitlistLimits.quantityMin, maximum: waitlistLimits.quantityMax, description: 'Seats or places wanted, offered together' }),
}, { additionalProperties: false });

export const WaitlistEntryResponse = Type.Object({
  entryId: Type.String(),
  showId: Type.String(),
  sectionId: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
  status: Type.Union(waitlistStatuses.map((s) => Type.Literal(s))),
  joinedAt: Type.String({ format: 'date-time' }),
  holdId: Type.Union([Type.String(), Type.Null()], { description: 'The hold offered: pay it through the usual checkout before claimUntil' }),
  claimUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
