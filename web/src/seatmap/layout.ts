import type { Section } from '../api';

/** Where every seat sits on a grid of cells, sections packed left to right, to scale. */
export interface SeatLayout {
  readonly seatIds: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly x: Uint16Array;
  readonly y: Uint16Array;
  /** Section index of each seat (its price tier colour comes from the section). */
  readonly section: Uint16Array;
  readonly row: Uint16Array;
  readonly number: Uint16Array;
  readonly cols: number;
  readonly rows: number;
  /** Seat index per cell, -1 for an aisle. */
  readonly grid: Int32Array;
  readonly sections: readonly SectionBox[];
}

export interface SectionBox {
  readonly spec: Section;
  readonly x: number;
  readonly y: number;
  readonly tier: number;
}

/** Empty cells between sections, and above each (room for its label). */
const gapCells = 2;
const labelCells = 2;

/**
 * Seat ids come in the server's order (compact map); a preview passes none and gets every seat.
 * Ids are `<section>-<row>-<number>`, which is all the position a seat needs.
 */
export function buildLayout(sections: readonly Section[], seatIds?: readonly string[]): SeatLayout {
  const total = sections.reduce((n, s) => n + s.rows * s.seatsPerRow, 0);
  const widest = Math.max(...sections.map((s) => s.seatsPerRow));
  // A roughly 2:1 map for big venues, never narrower than the widest section.
  const targetWidth = Math.max(widest, Math.ceil(Math.sqrt(total * 2.5)));
  const boxes: SectionBox[] = [];
  const prices = [...new Set(sections.map((s) => s.priceCents))].sort((a, b) => b - a);
  let cx = 0;
  let cy = 0;
  let lineHeight = 0;
  let cols = 0;
  const lines: SectionBox[][] = [[]];
  for (const spec of sections) {
    if (cx > 0 && cx + spec.seatsPerRow > targetWidth) {
      cy += lineHeight + gapCells;
      cx = 0;
      lineHeight = 0;
      lines.push([]);
    }
    const box = { spec, x: cx, y: cy + labelCells, tier: prices.indexOf(spec.priceCents) };
    boxes.push(box);
    lines.at(-1)?.push(box);
    cx += spec.seatsPerRow + gapCells;
    lineHeight = Math.max(lineHeight, spec.rows + labelCells);
    cols = Math.max(cols, cx - gapCells);
  }
  const rows = cy + lineHeight;
  // Centre each line of sections, as a stage-facing hall would be.
  const centred = lines.flatMap((line) => {
    const width = line.reduce((w, b) => w + b.spec.seatsPerRow, 0) + gapCells * (line.length - 1);
    const shift = Math.floor((cols - width) / 2);
    return line.map((b) => ({ ...b, x: b.x + shift }));
  });
  const bySection = new Map(centred.map((b, i) => [b.spec.id, { box: b, i }]));
  const ids = seatIds ?? sections.flatMap((s) => {
    const out: string[] = [];
    for (let r = 1; r <= s.rows; r++) for (let n = 1; n <= s.seatsPerRow; n++) out.push(`${s.id}-${r}-${n}`);
    return out;
  });
  const x = new Uint16Array(ids.length);
  const y = new Uint16Array(ids.length);
  const section = new Uint16Array(ids.length);
  const row = new Uint16Array(ids.length);
  const number = new Uint16Array(ids.length);
  const grid = new Int32Array(cols * rows).fill(-1);
  const index = new Map<string, number>();
  ids.forEach((id, i) => {
    const [sid = '', r = '0', n = '0'] = id.split('-');
    const found = bySection.get(sid);
    index.set(id, i);
    if (found === undefined) return;
    row[i] = Number(r);
    number[i] = Number(n);
    section[i] = found.i;
    x[i] = found.box.x + Number(n) - 1;
    y[i] = found.box.y + Number(r) - 1;
    grid[(y[i] as number) * cols + (x[i] as number)] = i;
  });
  return { seatIds: ids, index, x, y, section, row, number, cols, rows, grid, sections: centred };
}

/** Status codes, as in the compact map: A H S R. */
export const statusLetters = 'AHSR';
export type StatusName = 'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING';
export const statusNames: readonly StatusName[] = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'];

/** Colour-blind-safe tier colours (Okabe–Ito), dearest first. Status is shown by shape, not colour. */
export const tierColours = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8C6D1F', '#5B5B5B'];
export const tierColour = (tier: number): string => tierColours[tier % tierColours.length] as string;
