import { api, type Show } from '../api';
import { getValue, setValue } from './offline-store';

/** Shows a door offers: on sale, or starting within a day of now (the day's doors), soonest first. */
export function doorShows(shows: readonly Show[], now = Date.now()): Show[] {
  const day = 86_400_000;
  const today = shows.filter((s) => s.status === 'ON_SALE' || Math.abs(Date.parse(s.startsAt) - now) <= day);
  return [...today].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
}

/**
 * The catalog's shows (their sections name seats at the door), fetched while online and kept in
 * IndexedDB with the key, so a door offline still names a seat "Stalls, row 4, seat 10".
 */
export async function loadShows(online: boolean): Promise<Show[]> {
  if (online) {
    try {
      const { shows } = await api<{ shows: Show[] }>('/shows?limit=100');
      await setValue('shows', shows);
      return shows;
    } catch {
      // Use what is cached.
    }
  }
  return (await getValue<Show[]>('shows')) ?? [];
}
