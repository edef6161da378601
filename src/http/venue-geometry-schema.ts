import { Type } from '@sinclair/typebox';

/** The domain's VenueGeometry (src/domain/venue-geometry.ts) as the API sends it. */
export const VenueGeometrySchema = Type.Object({
  cols: Type.Integer({ description: 'Width of the drawn map, in seat cells' }),
  rows: Type.Integer({ description: 'Height of the drawn map, in seat cells' }),
  stage: Type.Object({
    x: Type.Number({ description: 'Left end of the stage\'s front edge, in cells' }),
    y: Type.Number({ description: 'The front edge\'s cell row (the stage is drawn above it)' }),
    width: Type.Number({ description: 'Length of the front edge, in cells; best available measures from its middle' }),
  }),
  sections: Type.Array(Type.Object({
    id: Type.String(),
    x: Type.Integer({ description: 'Cell of the section\'s row 1, seat 1; seat n of row r is at (x + n - 1, y + r - 1)' }),
    y: Type.Integer(),
  }), { description: 'The sections drawn on the map (seated, sold by seat), in map order' }),
}, {
  title: 'Venue geometry',
  description: 'Where the seat map draws each section and the stage, in seat cells: best available ranks seats by their distance to the stage on this picture',
});
