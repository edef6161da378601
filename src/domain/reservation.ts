/**
 * One line of a hold or order: specific seats of a section (sold by seat), or a quantity of a
 * counted section (general admission, or a seated section sold by quantity whose seats are picked
 * when the tickets are issued).
 */
export type ReservationLine =
  | { readonly kind: 'SEATS'; readonly sectionId: string; readonly seatIds: readonly string[] }
  | { readonly kind: 'UNITS'; readonly sectionId: string; readonly quantity: number };

/** Units a set of lines ties up: one per seat, or the quantity; what the per-buyer limit counts. */
export function unitsOf(lines: readonly ReservationLine[]): number {
  return lines.reduce((sum, line) => sum + (line.kind === 'SEATS' ? line.seatIds.length : line.quantity), 0);
}

/** Every specific seat the lines name, in line order. */
export function seatIdsOf(lines: readonly ReservationLine[]): string[] {
  return lines.flatMap((line) => (line.kind === 'SEATS' ? [...line.seatIds] : []));
}

/**
 * The price of a hold's lines: each unit at its section's price (a price tier), never the seat's.
 * The one place a hold is priced; every adapter's claim calls it with the section prices it read
 * (the single-statement claims of PostgreSQL sum the same prices in SQL).
 */
export function holdPriceCents(lines: readonly ReservationLine[], priceCentsOf: (sectionId: string) => number | undefined): number {
  return lines.reduce((sum, line) => sum + (line.kind === 'SEATS' ? line.seatIds.length : line.quantity) * (priceCentsOf(line.sectionId) ?? 0), 0);
}

/** Groups seats by their section into SEATS lines, in the order the sections first appear. */
export function seatLines(seats: readonly { readonly seatId: string; readonly section: string }[]): ReservationLine[] {
  const bySection = new Map<string, string[]>();
  for (const seat of seats) {
    const ids = bySection.get(seat.section);
    if (ids === undefined) bySection.set(seat.section, [seat.seatId]);
    else ids.push(seat.seatId);
  }
  return [...bySection].map(([sectionId, seatIds]) => ({ kind: 'SEATS', sectionId, seatIds }));
}
