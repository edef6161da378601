import type { Section, VenueGeometry } from '../api';

/** Empty cells between sections, and above each (room for its label): as the server's geometry. */
const gapCells = 2;
const labelCells = 2;

/**
 * The venue geometry for a map the server has not placed: the organizer's preview of a show not
 * created yet, or a show from a server too old to send `geometry`. The same packing as the
 * server's venueGeometry (src/domain/venue-geometry.ts; test/web-unit checks they agree), so the
 * preview is the map buyers will see: sections left to right in map order, wrapping behind at
 * about 2.5:1, each line centred under the stage.
 */
export function previewGeometry(sections: readonly Section[]): VenueGeometry {
  const total = sections.reduce((n, s) => n + s.rows * s.seatsPerRow, 0);
  const widest = sections.reduce((w, s) => Math.max(w, s.seatsPerRow), 0);
  const targetWidth = Math.max(widest, Math.ceil(Math.sqrt(total * 2.5)));
  const lines: { id: string; width: number; x: number; y: number }[][] = [[]];
  let cx = 0;
  let cy = 0;
  let lineHeight = 0;
  let cols = 0;
  for (const spec of sections) {
    if (cx > 0 && cx + spec.seatsPerRow > targetWidth) {
      cy += lineHeight + gapCells;
      cx = 0;
      lineHeight = 0;
      lines.push([]);
    }
    lines.at(-1)?.push({ id: spec.id, width: spec.seatsPerRow, x: cx, y: cy + labelCells });
    cx += spec.seatsPerRow + gapCells;
    lineHeight = Math.max(lineHeight, spec.rows + labelCells);
    cols = Math.max(cols, cx - gapCells);
  }
  const placed = lines.flatMap((line) => {
    const width = line.reduce((w, b) => w + b.width, 0) + gapCells * (line.length - 1);
    const shift = Math.floor((cols - width) / 2);
    return line.map((b) => ({ id: b.id, x: b.x + shift, y: b.y }));
  });
  const stageWidth = cols * 0.6;
  return { cols, rows: cy + lineHeight, stage: { x: (cols - stageWidth) / 2, y: 0, width: stageWidth }, sections: placed };
}
