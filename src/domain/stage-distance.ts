import type { SeatMapSpec } from './show.js';
import { venueGeometry } from './venue-geometry.js';

/** A seat position a buyer may ask to sit near. */
export interface SeatPoint {
  readonly section: string;
  readonly row: number;
  readonly number: number;
}

/**
 * How far seats are from where the buyer wants to be, on the map as drawn (venue-geometry.ts):
 * from the stage's front-centre, or from the seat named in `near`. One row further weighs as much
 * as two seats aside (a seat straight on, a row back, beats the far end of a row), so the measure
 * is the length of (dx, 2 dy) in seat cells.
 */
export interface SeatMetric {
  /** Distance of a seat; `number` may be fractional (the middle of a run of seats). */
  seat(section: string, row: number, number: number): number;
  /** No seat, and no run's middle, of this row is nearer than this. */
  row(section: string, row: number): number;
}

/** Seats outside the preferred point's section come after every seat inside it. */
export const otherSectionPenalty = 1_000_000;
const rowWeight = 2;

/**
 * Where a seated section sits. Sections drawn on the map share the venue's frame; a section sold
 * by QUANTITY is not drawn, so it is measured alone, from a stage centred in front of it.
 */
interface Place {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  /** '' for the venue's frame; the section's own id for a section measured alone. */
  readonly frame: string;
  /** The stage's front-centre, in the same frame. */
  readonly stageX: number;
  readonly stageY: number;
}

/** Per seat map object: the chooser runs several times per claim, the geometry need not. */
const placesCache = new WeakMap<SeatMapSpec, ReadonlyMap<string, Place>>();

function placesOf(seatMap: SeatMapSpec): ReadonlyMap<string, Place> {
  const cached = placesCache.get(seatMap);
  if (cached !== undefined) return cached;
  const geometry = venueGeometry(seatMap);
  // The front edge is centred on the map: its middle is cols / 2, exactly (no rounding of x + width / 2).
  const stageX = geometry.cols / 2;
  const drawn = new Map(geometry.sections.map((p) => [p.id, p]));
  const places = new Map<string, Place>();
  for (const section of seatMap.sections) {
    if (section.kind !== 'SEATED') continue;
    const p = drawn.get(section.id);
    places.set(section.id, p === undefined
      ? { x: 0, y: 0, width: section.seatsPerRow, frame: section.id, stageX: section.seatsPerRow / 2, stageY: 0 }
      : { x: p.x, y: p.y, width: section.seatsPerRow, frame: '', stageX, stageY: geometry.stage.y });
  }
  placesCache.set(seatMap, places);
  return places;
}

interface Target {
  readonly place: Place;
  readonly x: number;
  readonly y: number;
  readonly penalty: number;
}

/** The metric of one request. O(sections) to make; each call O(1). */
export function seatMetric(seatMap: SeatMapSpec, near: SeatPoint | undefined): SeatMetric {
  const places = placesOf(seatMap);
  const nearPlace = near === undefined ? undefined : places.get(near.section);
  const targets = new Map<string, Target>();
  const targetOf = (section: string): Target | undefined => {
    const known = targets.get(section);
    if (known !== undefined) return known;
    const place = places.get(section);
    if (place === undefined) return undefined;
    let target: Target;
    if (near === undefined || nearPlace === undefined) target = { place, x: place.stageX, y: place.stageY, penalty: 0 };
    else {
      const penalty = section === near.section ? 0 : otherSectionPenalty;
      target = nearPlace.frame === place.frame
        ? { place, x: nearPlace.x + near.number - 0.5, y: nearPlace.y + near.row - 0.5, penalty }
        : { place, x: place.stageX, y: place.stageY, penalty };
    }
    targets.set(section, target);
    return target;
  };
  return {
    seat(section, row, number) {
      const t = targetOf(section);
      if (t === undefined) return Infinity;
      const dx = t.place.x + number - 0.5 - t.x;
      const dy = (t.place.y + row - 0.5 - t.y) * rowWeight;
      return t.penalty + Math.sqrt(dx * dx + dy * dy);
    },
    row(section, row) {
      const t = targetOf(section);
      if (t === undefined) return Infinity;
      // The nearest point of the row's span of seat middles to the target.
      const first = t.place.x + 0.5;
      const last = t.place.x + t.place.width - 0.5;
      const dx = t.x < first ? first - t.x : t.x > last ? t.x - last : 0;
      const dy = (t.place.y + row - 0.5 - t.y) * rowWeight;
      return t.penalty + Math.sqrt(dx * dx + dy * dy);
    },
  };
}
