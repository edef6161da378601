import { Type } from '@sinclair/typebox';
import { queueEntryStates, waitingRoomBounds as b } from '../domain/index.js';

/** Request and answer shapes of the waiting room and its queue (issue 24 items 1-2). */
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

export const RoomParams = Type.Object({ activityId: Id });
export const QueueParams = Type.Object({ activityId: Id, queueId: Id });

export const WaitingRoomBody = Type.Object({
  enabled: Type.Boolean({ description: 'On: holds, orders and campaign orders of the activity need an admission token' }),
  admitPerMinute: Type.Integer({ minimum: b.admitPerMinuteMin, maximum: b.admitPerMinuteMax, description: `Places admitted per minute (${b.admitPerMinuteMin}-${b.admitPerMinuteMax}); 0 pauses admission` }),
  admissionSeconds: Type.Integer({ minimum: b.admissionSecondsMin, maximum: b.admissionSecondsMax, description: `How long an admission (and its token) lasts, seconds (${b.admissionSecondsMin}-${b.admissionSecondsMax})` }),
}, { additionalProperties: false });

export const WaitingRoomResponse = Type.Object({
  activityId: Type.String(),
  enabled: Type.Boolean(),
  admitPerMinute: Type.Integer(),
  admissionSeconds: Type.Integer(),
  version: Type.Integer({ description: 'Raised by every change' }),
  updatedAt: Type.String(),
  queueLength: Type.Integer({ description: 'Places WAITING now' }),
  admittedNow: Type.Integer({ description: 'Places ADMITTED now (their window running)' }),
  admittedLastMinute: Type.Integer({ description: 'Admissions in the last 60 seconds' }),
});

export const QueueResponse = Type.Object({
  queueId: Type.String(),
  activityId: Type.String(),
  state: Type.Union(queueEntryStates.map((s) => Type.Literal(s))),
  position: Type.Integer({ minimum: 0, description: 'While WAITING: 1 + the places ahead; otherwise 0' }),
  estimatedWaitSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Position over the admission rate; null while admission is paused' }),
  admissionToken: Type.Optional(Type.String({ description: 'While ADMITTED: send it as X-Admission-Token on holds, orders and campaign orders of this activity' })),
  admittedUntil: Type.Optional(Type.String({ description: 'While ADMITTED: when the admission window ends' })),
});
