import { api, type Show } from './api';

/**
 * The titles of these shows, one read each (GET /shows/{id}); a show that cannot be read (gone, or
 * a campaign's own show) is left out, and the caller says something generic rather than its id.
 */
export async function showTitles(ids: Iterable<string | null>): Promise<Map<string, string>> {
  const unique = [...new Set([...ids].filter((id): id is string => id !== null))];
  const titles = await Promise.all(unique.map((id) => api<Show>(`/shows/${encodeURIComponent(id)}`).then((s) => s.title, () => null)));
  return new Map(unique.flatMap((id, i): [string, string][] => (titles[i] == null ? [] : [[id, titles[i] as string]])));
}
