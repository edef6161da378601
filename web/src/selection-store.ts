/**
 * The seats a buyer picked on a show, kept in sessionStorage (this tab only) so that signing in
 * in the middle, or a reload, comes back to the same selection. Keyed by show; bounded.
 */
const prefix = 'tr.selection.';
const idsMax = 50;
const idLengthMax = 64;

export function loadSelection(showId: string): string[] {
  try {
    const saved = JSON.parse(sessionStorage.getItem(prefix + showId) ?? '[]') as unknown;
    if (!Array.isArray(saved)) return [];
    return saved.filter((id): id is string => typeof id === 'string' && id.length <= idLengthMax).slice(0, idsMax);
  } catch {
    return [];
  }
}

export function saveSelection(showId: string, seatIds: readonly string[]): void {
  try {
    if (seatIds.length === 0) sessionStorage.removeItem(prefix + showId);
    else sessionStorage.setItem(prefix + showId, JSON.stringify(seatIds.slice(0, idsMax)));
  } catch {
    // Storage full or blocked: the selection just does not survive a sign-in.
  }
}
