import type { ShowSection } from './api';
import { t } from './i18n';

/** Where a seat id points: `<section>-<row>-<number>` (the section id may itself hold dashes). */
export interface SeatPlace {
  readonly sectionId: string;
  readonly row: number;
  readonly number: number;
}

/** Parses a seat id from its end, as the server writes it; null for anything else. */
export function parseSeatId(seatId: string): SeatPlace | null {
  const match = /^(.+)-([1-9]\d{0,5})-([1-9]\d{0,5})$/.exec(seatId);
  if (match === null) return null;
  return { sectionId: match[1] as string, row: Number(match[2]), number: Number(match[3]) };
}

const sectionName = (sections: readonly ShowSection[], id: string): string => sections.find((s) => s.id === id)?.name ?? id;

/** "Stalls, row 4, seat 10" (一层 4排10座): one seat as a person reads it. */
export function seatName(sections: readonly ShowSection[], seatId: string): string {
  const place = parseSeatId(seatId);
  if (place === null) return seatId;
  return t('seatNameOne', { section: sectionName(sections, place.sectionId), row: place.row, number: place.number });
}

/**
 * Seats as a person reads them, grouped by section and row, consecutive numbers as a range:
 * "Stalls, row 4, seats 10–11; Balcony, row 1, seat 3". Unknown ids are kept as they are.
 */
export function seatsName(sections: readonly ShowSection[], seatIds: readonly string[]): string {
  const groups = new Map<string, { section: string; row: number; numbers: number[] }>();
  const odd: string[] = [];
  for (const id of seatIds) {
    const place = parseSeatId(id);
    if (place === null) {
      odd.push(id);
      continue;
    }
    const key = `${place.sectionId}\u0000${place.row}`;
    const group = groups.get(key) ?? { section: place.sectionId, row: place.row, numbers: [] };
    group.numbers.push(place.number);
    groups.set(key, group);
  }
  const parts: string[] = [];
  for (const group of groups.values()) {
    const section = sectionName(sections, group.section);
    const runs = toRuns(group.numbers.sort((a, b) => a - b));
    const single = runs.length === 1 && runs[0]?.[0] === runs[0]?.[1];
    const numbers = runs.map(([from, to]) => (from === to ? String(from) : t('seatRange', { from, to }))).join(t('listSeparator'));
    parts.push(t(single ? 'seatNameOne' : 'seatNameMany', { section, row: group.row, number: numbers, numbers }));
  }
  return [...parts, ...odd].join(t('groupSeparator'));
}

/** "3 × Standing": places of a counted section. */
export function unitsName(sections: readonly ShowSection[], sectionId: string, quantity: number): string {
  return t('unitsLine', { n: quantity, section: sectionName(sections, sectionId) });
}

function toRuns(sorted: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const n of sorted) {
    const last = runs.at(-1);
    if (last !== undefined && n === last[1] + 1) last[1] = n;
    else if (last === undefined || n !== last[1]) runs.push([n, n]);
  }
  return runs;
}
