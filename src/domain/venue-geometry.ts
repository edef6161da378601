import type { SeatMapSpec, SeatedSectionSpec } from './show.js';

/**
 * Where the seat map is drawn, in seat cells (one cell per seat, x to the right, y away from the
 * stage). One function places the sections, so the map a buyer sees and the seats best-available
 * ranks by distance to the stage are the same picture: the web draws from this (served on
 * GET /shows/{id} as `geometry`), and candidateRows / chooseBestAvailable measure on it.
 */
export interface VenueGeometry {
  /** Width and height of the grid, in cells. */
  readonly cols: number;
  readonly rows: number;
  /** The stage, drawn above the grid: its front edge runs from x to x + width at y. */
  readonly stage: { readonly x: number; readonly y: number; readonly width: number };
  /** The sections drawn on the map (seated, sold by SEAT), in map order. */
  readonly sections: readonly PlacedSection[];
}

/** A drawn section: its seat (row 1, number 1) is the cell (x, y); row r, number n is (x + n - 1, y + r - 1). */
export interface PlacedSection {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

/** Empty cells between sections side by side and between lines of sections. */
export const sectionGapCells = 2;
/** Empty cells above each section: room for its label. */
export const sectionLabelCells = 2;
/** The stage spans the middle of the map's width (this share of it). */
const stageWidthShare = 0.6;

/** The sections drawn on the map: seated, sold seat by seat (the rest are counted blocks). */
export function drawnSections(seatMap: SeatMapSpec): SeatedSectionSpec[] {
  return seatMap.sections.filter((s): s is SeatedSectionSpec => s.kind === 'SEATED' && s.sellBy === 'SEAT');
}

/**
 * Sections packed left to right in map order, to scale, wrapping onto a new line behind the
 * previous one when the line would pass a width of about 2.5:1 for the whole hall (never narrower
 * than the widest section); each line centred under the stage, as a stage-facing hall would be.
 * The first section of the map is at the front. O(sections).
 */
export function venueGeometry(seatMap: SeatMapSpec): VenueGeometry {
  const sections = drawnSections(seatMap);
  const total = sections.reduce((n, s) => n + s.rows * s.seatsPerRow, 0);
  const widest = sections.reduce((w, s) => Math.max(w, s.seatsPerRow), 0);
  const targetWidth = Math.max(widest, Math.ceil(Math.sqrt(total * 2.5)));
  const lines: { spec: SeatedSectionSpec; x: number; y: number }[][] = [[]];
  let cx = 0;
  let cy = 0;
  let lineHeight = 0;
  let cols = 0;
  for (const spec of sections) {
    if (cx > 0 && cx + spec.seatsPerRow > targetWidth) {
      cy += lineHeight + sectionGapCells;
      cx = 0;
      lineHeight = 0;
      lines.push([]);
    }
    lines.at(-1)?.push({ spec, x: cx, y: cy + sectionLabelCells });
    cx += spec.seatsPerRow + sectionGapCells;
    lineHeight = Math.max(lineHeight, spec.rows + sectionLabelCells);
    cols = Math.max(cols, cx - sectionGapCells);
  }
  const placed = lines.flatMap((line) => {
    const width = line.reduce((w, b) => w + b.spec.seatsPerRow, 0) + sectionGapCells * (line.length - 1);
    const shift = Math.floor((cols - width) / 2);
    return line.map((b): PlacedSection => ({ id: b.spec.id, x: b.x + shift, y: b.y }));
  });
  const stageWidth = cols * stageWidthShare;
  return { cols, rows: cy + lineHeight, stage: { x: (cols - stageWidth) / 2, y: 0, width: stageWidth }, sections: placed };
}
