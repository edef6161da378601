import type { Section, VenueGeometry } from '../api';
import { previewGeometry } from './preview-geometry';

/** Where every seat sits on a grid of cells, to scale, as the server's venue geometry places the sections. */
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
  /** The stage's front edge, in cells (drawn above the grid). */
  readonly stage: VenueGeometry['stage'];
}

export interface SectionBox {
  readonly spec: Section;
  readonly x: number;
  readonly y: number;
  readonly tier: number;
}

/**
 * Seat ids come in the server's order (compact map); a preview passes none and gets every seat.
 * Ids are `<section>-<row>-<number>`, which is all the position a seat needs beside the section's
 * place. The places come from the server (`geometry`, the picture best available measures on);
 * a preview of a show not created yet packs them the same way here.
 */
export function buildLayout(sections: readonly Section[], seatIds?: readonly string[], geometry: VenueGeometry = previewGeometry(sections)): SeatLayout {
  const prices = [...new Set(sections.map((s) => s.priceCents))].sort((a, b) => b - a);
  const places = new Map(geometry.sections.map((p) => [p.id, p]));
  const { cols, rows } = geometry;
  const boxes = sections.flatMap((spec): SectionBox[] => {
    const place = places.get(spec.id);
    return place === undefined ? [] : [{ spec, x: place.x, y: place.y, tier: prices.indexOf(spec.priceCents) }];
  });
  const bySection = new Map(boxes.map((b, i) => [b.spec.id, { box: b, i }]));
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
  return { seatIds: ids, index, x, y, section, row, number, cols, rows, grid, sections: boxes, stage: geometry.stage };
}

/** Status codes, as in the compact map: A H S R. */
export const statusLetters = 'AHSR';
export type StatusName = 'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING';
export const statusNames: readonly StatusName[] = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'];

/** Colour-blind-safe tier colours (Okabe–Ito), dearest first. Status is shown by shape, not colour. */
export const tierColours = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#8C6D1F', '#5B5B5B'];
export const tierColour = (tier: number): string => tierColours[tier % tierColours.length] as string;
