/**
 * Opens after `failuresMax` consecutive failures and stays open `openMs`: while open, callers skip
 * Redis at once instead of each waiting out a timeout (a dead Redis must cost a hold nothing).
 * Then one call at a time is let through (half-open); its success closes the breaker again.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private probing = false;

  constructor(private readonly failuresMax: number, private readonly openMs: number, private readonly now: () => number = Date.now) {}

  /** Whether a call may go to Redis now. A true answer while half-open reserves the one probe. */
  allow(): boolean {
    if (this.failures < this.failuresMax) return true;
    if (this.now() < this.openUntil || this.probing) return false;
    this.probing = true;
    return true;
  }

  succeeded(): void {
    this.failures = 0;
    this.probing = false;
  }

  failed(): void {
    this.failures++;
    this.probing = false;
    if (this.failures >= this.failuresMax) this.openUntil = this.now() + this.openMs;
  }

  get open(): boolean {
    return this.failures >= this.failuresMax;
  }
}
