import { seatIdOf, type SeatPosition } from '../../domain/index.js';

/**
 * A free seat as the best-available chooser sees it. The chooser reads many seats and returns a
 * few, so the id is made only when asked for; and the objects are kept per show section (a seat's
 * place and accessibility never change), so a choice allocates nothing per seat it looks at.
 */
class FreeSeat implements SeatPosition {
  readonly available = true;
  #seatId: string | undefined;
  constructor(readonly section: string, readonly row: number, readonly number: number, readonly accessible: boolean) {}
  get seatId(): string {
    // Seat ids are made by the domain's seatIdOf when a show is laid out (every schema version).
    this.#seatId ??= seatIdOf(this.section, this.row, this.number);
    return this.#seatId;
  }
}

/** Show sections whose seat objects are kept; the least recently added goes first. */
const sectionsKeptMax = 64;

/**
 * The seat objects of the shows being sold, shared by every best-available read of a process.
 * Both SQL adapters read a row's free seats as one string of seat numbers, negative for an
 * accessible seat ("1,2,-3"): one value per row to transfer and parse instead of one per seat.
 */
export class FreeSeats {
  readonly #kept = new Map<string, FreeSeat[][]>();

  /** Appends the seats of one row's string to `into`. */
  parseRow(showId: string, section: string, row: number, numbers: string, into: SeatPosition[]): void {
    const seats = (this.#rowsOf(showId, section)[row] ??= []);
    for (const token of numbers.split(',')) {
      const signed = Number(token);
      const number = Math.abs(signed);
      into.push((seats[number] ??= new FreeSeat(section, row, number, signed < 0)));
    }
  }

  #rowsOf(showId: string, section: string): FreeSeat[][] {
    const key = `${showId}\u0000${section}`;
    let rows = this.#kept.get(key);
    if (rows === undefined) {
      if (this.#kept.size >= sectionsKeptMax) this.#kept.delete(this.#kept.keys().next().value as string);
      rows = [];
      this.#kept.set(key, rows);
    }
    return rows;
  }
}
