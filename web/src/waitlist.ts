import { api } from './api';

/** A waitlist entry as GET /me/waitlist answers it (issue 25 item 5, 候补). */
export interface WaitlistEntry {
  readonly entryId: string;
  readonly showId: string;
  readonly sectionId: string | null;
  readonly quantity: number;
  readonly status: 'WAITING' | 'OFFERED' | 'CLAIMED' | 'LAPSED' | 'LEFT';
  readonly joinedAt: string;
  readonly holdId: string | null;
  readonly claimUntil: string | null;
}

export const myWaitlist = async (): Promise<WaitlistEntry[]> => (await api<{ entries: WaitlistEntry[] }>('/me/waitlist')).entries;

/** The buyer's live entry (WAITING or OFFERED) for a show, if any. */
export const liveEntryOf = (entries: readonly WaitlistEntry[], showId: string): WaitlistEntry | null =>
  entries.find((e) => e.showId === showId && (e.status === 'WAITING' || e.status === 'OFFERED')) ?? null;

export const joinWaitlist = (showId: string, quantity: number): Promise<WaitlistEntry> =>
  api<WaitlistEntry>(`/shows/${encodeURIComponent(showId)}/waitlist`, { method: 'POST', body: { quantity } });

export const leaveWaitlist = (showId: string): Promise<WaitlistEntry> =>
  api<WaitlistEntry>(`/shows/${encodeURIComponent(showId)}/waitlist`, { method: 'DELETE' });
