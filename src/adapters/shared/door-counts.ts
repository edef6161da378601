import type { TicketStatus } from '../../domain/index.js';

/** How a ticket's status change moves its show's door counters (admitting: VALID or USED; checked in: USED). */
export function doorCountDelta(from: TicketStatus, to: TicketStatus): { admitting: number; checkedIn: number } {
  const admits = (s: TicketStatus): number => (s === 'INVALID' ? 0 : 1);
  const used = (s: TicketStatus): number => (s === 'USED' ? 1 : 0);
  return { admitting: admits(to) - admits(from), checkedIn: used(to) - used(from) };
}

/**
 * The first string after every string that starts with `prefix`, in code point order (which is
 * UTF-8 byte order, how SQLite's BINARY and PostgreSQL's "C" collation compare): the prefix with
 * its last code point raised by one. null when there is no such bound (an empty prefix: everything).
 * A prefix search is then the index range prefix <= key < bound.
 */
export function keyRangeEnd(prefix: string): string | null {
  const points = [...prefix].map((c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = (points.pop() as number) + 1;
    if (last > 0x10ffff) continue;
    points.push(last === 0xd800 ? 0xe000 : last);
    return String.fromCodePoint(...points);
  }
  return null;
}
