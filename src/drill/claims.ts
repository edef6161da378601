/** Seats a flow goes after: named seats (pick "seats") or a quantity for the server to pick ("best"). */
export interface Claim {
  readonly seatIds: readonly string[] | null;
  readonly quantity: number;
  /** Holds tried for it so far. */
  attempts: number;
}

/**
 * The seats still to sell, handed out a claim at a time. Claims are disjoint, so buyers never
 * race each other for a seat; a claim whose flow failed comes back to be tried again.
 */
export class ClaimQueue {
  private readonly claims: Claim[];

  private constructor(claims: Claim[]) {
    // Handed out from the end: reversed so the front of the map sells first.
    this.claims = claims.reverse();
  }

  /** Consecutive runs of the map's seats (sections, rows, numbers in order): adjacent seats in one row when the row length allows. */
  static ofSeats(seatIds: readonly string[], perHold: number): ClaimQueue {
    const claims: Claim[] = [];
    for (let i = 0; i < seatIds.length; i += perHold) {
      const chunk = seatIds.slice(i, i + perHold);
      claims.push({ seatIds: chunk, quantity: chunk.length, attempts: 0 });
    }
    return new ClaimQueue(claims);
  }

  static ofQuantity(seats: number, perHold: number): ClaimQueue {
    const claims: Claim[] = [];
    for (let left = seats; left > 0; left -= perHold) claims.push({ seatIds: null, quantity: Math.min(perHold, left), attempts: 0 });
    return new ClaimQueue(claims);
  }

  next(): Claim | undefined {
    return this.claims.pop();
  }

  /** Tried again before anything new (pushed to the end that `next` takes from). */
  giveBack(claim: Claim): void {
    this.claims.push(claim);
  }

  get size(): number {
    return this.claims.length;
  }
}
