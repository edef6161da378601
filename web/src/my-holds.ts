import { effect, signal } from '@preact/signals';
import { api, type Hold } from './api';
import { lang } from './i18n';
import { session } from './session';

/** One of the buyer's live holds as GET /me/holds answers it: with its show and extension terms. */
export interface MyHold extends Hold {
  readonly extensions: number;
  readonly extensionsMax: number;
  readonly latestExpiresAt: string;
  readonly show: { readonly showId: string; readonly title: string; readonly startsAt: string; readonly venue: string; readonly city: string };
}

/** A hold as the booking routes answer it (the terms come with every answer of a current server). */
export type HoldWithTerms = Hold & Partial<Pick<MyHold, 'extensions' | 'extensionsMax' | 'latestExpiresAt'>>;

/**
 * The signed-in buyer's live holds, as the server knows them: every page resumes from this (the
 * show page's hold panel, the banner elsewhere). null until first read. Re-read when the session
 * changes, when the tab comes back into view or focus, and when another tab of this browser says
 * its holds changed (the storage event), so a reload, a second tab or signing in again never
 * loses a hold.
 */
export const myHolds = signal<readonly MyHold[] | null>(null);

const changedKey = 'tr.holds.changed';
/** Only the newest read may publish: an older answer arriving late would bring back an old state. */
let reads = 0;

export async function refreshHolds(): Promise<void> {
  const read = ++reads;
  if (session.value === null) {
    myHolds.value = [];
    return;
  }
  try {
    const { holds } = await api<{ holds: MyHold[] }>('/me/holds');
    if (read === reads) myHolds.value = holds;
  } catch {
    // Offline or signed out meanwhile: keep what we knew; the next focus or change reads again.
  }
}

/** This tab changed a hold (placed, extended, released, ordered, cancelled): read again, and tell the other tabs. */
export function holdsChanged(): void {
  try {
    localStorage.setItem(changedKey, String(Date.now()));
  } catch {
    // Storage full or disabled: the other tabs still catch up on focus.
  }
  void refreshHolds();
}

let started = false;
/** Starts following the holds (once per page load). */
export function followHolds(): void {
  if (started) return;
  started = true;
  // Reading the token subscribes: signing in or out reads the holds again.
  effect(() => {
    void session.value?.token;
    void refreshHolds();
  });
  addEventListener('storage', (event) => {
    if (event.key === changedKey || event.key === 'tr.session') void refreshHolds();
  });
  addEventListener('focus', () => void refreshHolds());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void refreshHolds();
  });
}

/** "20:15": when a hold ends, as the clock on the wall says it. */
export const timeOfDay = (iso: string): string => new Intl.DateTimeFormat(lang.value, { timeStyle: 'short' }).format(new Date(iso));
