/** Time is injected everywhere so tests and simulations can drive it. */
export interface Clock {
  now(): number;
}

export type IdKind = 'user' | 'show' | 'hold' | 'order' | 'ticket' | 'flashSale' | 'codePool' | 'bargain' | 'bargainOrder' | 'auditEntry' | 'notification' | 'waitlistEntry' | 'refund' | 'exchange' | 'block' | 'queue';

/** Opaque identifiers and unguessable codes; randomness is injected like the clock. */
export interface IdSource {
  newId(kind: IdKind): string;
  /** An unguessable code printed on a ticket (upper-case, no ambiguous characters). */
  newTicketCode(): string;
}
