import { serverNow } from './api';

/**
 * Admission tokens this tab holds, per activity (issue 24): the queue page stores the token once
 * the buyer is admitted, and the buying requests of that activity (holds, orders, campaign orders,
 * grabs) send it as X-Admission-Token. Kept in sessionStorage: per tab, gone with it.
 */
interface Admission {
  readonly token: string;
  /** Epoch ms (server time) when the admission ends. */
  readonly until: number;
}

const key = (activityId: string): string => `admission:${activityId}`;

export function saveAdmission(activityId: string, token: string, admittedUntil: string): void {
  try {
    sessionStorage.setItem(key(activityId), JSON.stringify({ token, until: Date.parse(admittedUntil) }));
  } catch {
    // Storage full or off: the token still works for this page's requests below.
  }
  memory.set(activityId, { token, until: Date.parse(admittedUntil) });
}

const memory = new Map<string, Admission>();

/** The activity's admission, while it lasts. */
export function admissionOf(activityId: string): Admission | null {
  let held = memory.get(activityId) ?? null;
  if (held === null) {
    try {
      const raw = sessionStorage.getItem(key(activityId));
      if (raw !== null) held = JSON.parse(raw) as Admission;
    } catch {
      held = null;
    }
  }
  if (held === null || typeof held.token !== 'string' || !(held.until > serverNow())) return null;
  return held;
}

/** The header to send on a buying request of the activity (none without an admission). */
export function admissionHeaders(activityId: string): Record<string, string> {
  const held = admissionOf(activityId);
  return held === null ? {} : { 'x-admission-token': held.token };
}

/** Whether an API refusal means "go through the queue first". */
export const needsQueue = (code: string | undefined): boolean => code === 'ADMISSION_REQUIRED' || code === 'ADMISSION_INVALID';

/** The queue page of an activity, coming back to `back` once admitted. */
export const queueHref = (activityId: string, back: string): string => `/queue/${encodeURIComponent(activityId)}?${new URLSearchParams({ next: back }).toString()}`;
