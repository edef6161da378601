import type { AppContext } from './context.js';
import { AppError } from './errors.js';

/**
 * The admission check of the buyer gate (buyer-gate.ts): with the activity's
 * room on, the request must carry a valid admission token of this user for this activity. Known
 * from memory (the room cache) and checked by signature: no database read.
 */
export function requireAdmission(ctx: Pick<AppContext, 'rooms' | 'admission' | 'clock'>, input: { readonly userId: string; readonly activityId: string; readonly token: string | undefined }): void {
  const room = ctx.rooms.get(input.activityId);
  if (room === null || !room.enabled) return;
  if (input.token === undefined || input.token.length === 0) {
    throw new AppError('ADMISSION_REQUIRED', 'this activity has a waiting room: join the queue and send the admission token (X-Admission-Token) once admitted');
  }
  const check = ctx.admission.verify(input.token, { userId: input.userId, activityId: input.activityId, now: ctx.clock.now() });
  if (!check.ok) throw new AppError('ADMISSION_INVALID', 'the admission token is not valid for this user, this activity, or now', { reason: check.reason });
  // A buyer who left the line gave their admission up: its token ends with it (from memory, fed by the change feed).
  if (ctx.rooms.hasLeft(check.claims)) throw new AppError('ADMISSION_INVALID', 'you left the line: this admission token has ended; join again', { reason: 'left' });
}
