import { isCounted, seatIdOf, type SeatMapSpec, type SeatedSectionSpec } from './show.js';

/** A seated section's place in the canonical seat order. */
export interface LaidOutSection {
  readonly spec: SeatedSectionSpec;
  /** Index of the section's first seat in the canonical order. */
  readonly first: number;
  /** Index of the section's first bit in the availability bitmap; -1 for a counted section (no bits). */
  readonly firstBit: number;
  readonly size: number;
  /** `row:number` of the accessible seats. */
  readonly accessible: ReadonlySet<string>;
}

/** Where one seat sits. */
export interface LaidOutSeat {
  readonly seatId: string;
  readonly section: string;
  readonly row: number;
  readonly number: number;
  readonly accessible: boolean;
  readonly priceCents: number;
}

/**
 * The canonical seat order of a show, computed from its seat map alone: seated sections in map
 * order, rows ascending, numbers ascending (the order of GET /shows/{id}/seats). Seat i and its id
 * convert both ways in O(sections), so a 100,000-seat show needs no per-seat table of ids or
 * positions in memory: the read model keeps one status byte and one version per seat, nothing more.
 * Bits of the availability bitmap follow the same order over the seats of sections sold by SEAT
 * (counted sections have no bits).
 */
export class SeatLayout {
  readonly sections: readonly LaidOutSection[];
  private readonly byId: ReadonlyMap<string, LaidOutSection>;
  /** Seats in the canonical order (every seat of every seated section). */
  readonly size: number;
  /** Bits of the availability bitmap (the seats of sections sold by SEAT). */
  readonly bits: number;

  constructor(seatMap: SeatMapSpec) {
    const sections: LaidOutSection[] = [];
    let first = 0;
    let firstBit = 0;
    for (const spec of seatMap.sections) {
      if (spec.kind !== 'SEATED') continue;
      const size = spec.rows * spec.seatsPerRow;
      const counted = isCounted(spec);
      sections.push({ spec, first, firstBit: counted ? -1 : firstBit, size, accessible: new Set(spec.accessible.map((p) => `${p.row}:${p.number}`)) });
      first += size;
      if (!counted) firstBit += size;
    }
    this.sections = sections;
    this.byId = new Map(sections.map((s) => [s.spec.id, s]));
    this.size = first;
    this.bits = firstBit;
  }

  /** Index of a seat id in the canonical order; -1 when the show has no such seat. */
  indexOf(seatId: string): number {
    const last = seatId.lastIndexOf('-');
    const middle = last <= 0 ? -1 : seatId.lastIndexOf('-', last - 1);
    if (middle <= 0) return -1;
    const section = this.byId.get(seatId.slice(0, middle));
    if (section === undefined) return -1;
    const row = positiveInteger(seatId.slice(middle + 1, last));
    const number = positiveInteger(seatId.slice(last + 1));
    const { rows, seatsPerRow } = section.spec;
    if (row < 1 || row > rows || number < 1 || number > seatsPerRow) return -1;
    return section.first + (row - 1) * seatsPerRow + (number - 1);
  }

  /** The section holding seat i (binary search over the few sections). */
  sectionAt(i: number): LaidOutSection {
    let lo = 0;
    let hi = this.sections.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.sections[mid] as LaidOutSection).first <= i) lo = mid;
      else hi = mid - 1;
    }
    return this.sections[lo] as LaidOutSection;
  }

  seatAt(i: number): LaidOutSeat {
    const section = this.sectionAt(i);
    const offset = i - section.first;
    const row = Math.floor(offset / section.spec.seatsPerRow) + 1;
    const number = (offset % section.spec.seatsPerRow) + 1;
    return {
      seatId: seatIdOf(section.spec.id, row, number),
      section: section.spec.id,
      row,
      number,
      accessible: section.accessible.has(`${row}:${number}`),
      priceCents: section.spec.priceCents,
    };
  }

  seatIdAt(i: number): string {
    const section = this.sectionAt(i);
    const offset = i - section.first;
    return seatIdOf(section.spec.id, Math.floor(offset / section.spec.seatsPerRow) + 1, (offset % section.spec.seatsPerRow) + 1);
  }

  /** Bit of seat i in the availability bitmap; -1 when its section is counted. */
  bitOf(i: number): number {
    const section = this.sectionAt(i);
    return section.firstBit < 0 ? -1 : section.firstBit + (i - section.first);
  }
}

/** Digits only, no sign, no leading zero: the form seatIdOf writes; anything else is -1. */
function positiveInteger(text: string): number {
  if (text.length === 0 || text.length > 6 || text[0] === '0') return -1;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return -1;
  }
  return Number(text);
}
