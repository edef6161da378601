import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { drawnSections, venueGeometry, type SectionSpec, type VenueGeometry } from '../../src/domain/index.js';

/**
 * One picture of the venue: the page draws the server's geometry, and only a show not created yet
 * (the organizer's preview) is packed in the page. That packing must be the server's, or the
 * preview would show a hall best available does not measure on.
 */
type Preview = (sections: readonly SectionSpec[]) => VenueGeometry;
// Loaded by path: the web's modules resolve as the bundler does, not as the server's typecheck.
const previewPath = fileURLToPath(new URL('../../web/src/seatmap/preview-geometry.ts', import.meta.url));
const { previewGeometry } = (await import(previewPath)) as { previewGeometry: Preview };

const seated = (id: string, rows: number, seatsPerRow: number, sellBy: 'SEAT' | 'QUANTITY' = 'SEAT'): SectionSpec =>
  ({ id, name: id, kind: 'SEATED', rows, seatsPerRow, priceCents: 1000, sellBy, accessible: [] });

describe('venue geometry: the page\'s preview packs as the server places', () => {
  it('places the demo show\'s stalls in front and its balcony behind, centred under the stage', () => {
    const geometry = venueGeometry({ sections: [seated('A', 10, 20), seated('B', 5, 16)] });
    expect(geometry).toEqual({ cols: 20, rows: 21, stage: { x: 4, y: 0, width: 12 }, sections: [{ id: 'A', x: 0, y: 2 }, { id: 'B', x: 2, y: 16 }] });
  });

  it('agrees with the server on any seat map (sections sold by quantity and standing room are not drawn)', () => {
    const section = fc.record({
      rows: fc.integer({ min: 1, max: 60 }),
      seatsPerRow: fc.integer({ min: 1, max: 120 }),
      kind: fc.constantFrom('SEAT', 'SEAT', 'QUANTITY', 'GA'),
    });
    fc.assert(fc.property(fc.array(section, { minLength: 1, maxLength: 12 }), (specs) => {
      const sections = specs.map((s, i): SectionSpec => (s.kind === 'GA'
        ? { id: `S${i}`, name: `S${i}`, kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 1000 }
        : seated(`S${i}`, s.rows, s.seatsPerRow, s.kind)));
      expect(previewGeometry(drawnSections({ sections }))).toEqual(venueGeometry({ sections }));
    }), { numRuns: 300 });
  });
});
