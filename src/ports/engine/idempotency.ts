/** A stored first answer to an idempotency key (the way payment APIs do it). */
export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly state: 'IN_FLIGHT' | 'DONE';
  /** Set once DONE: whether the first request succeeded, and its answer (JSON) to replay. */
  readonly outcome: 'SUCCEEDED' | 'FAILED' | null;
  readonly responseBody: string | null;
  /** When `beginKey` wrote it: identifies this request's record (see KeyClaim). */
  readonly createdAt: number;
}

/**
 * The IN_FLIGHT record one request wrote. Only its writer may answer for the key: a retry that
 * took the key over (limits.idempotencyInFlightMsMax) wrote a record with another createdAt.
 */
export interface KeyClaim {
  readonly scope: string;
  readonly key: string;
  readonly createdAt: number;
}

export type BeginKeyOutcome =
  | { readonly ok: true }
  /** The unique (scope, key) index refused it: someone wrote the key first. Here is their record. */
  | { readonly ok: false; readonly code: 'KEY_EXISTS'; readonly record: IdempotencyRecord };

export interface CompleteKeyInput extends KeyClaim {
  readonly outcome: 'SUCCEEDED' | 'FAILED';
  readonly responseBody: string;
}

export interface IdempotencyStore {
  getKey(scope: string, key: string): Promise<IdempotencyRecord | null>;
  /** Inserts an IN_FLIGHT record (state IN_FLIGHT, outcome and body null). */
  beginKey(record: IdempotencyRecord): Promise<BeginKeyOutcome>;
  /**
   * Precondition: the stored record of (scope, key) has this createdAt and is IN_FLIGHT.
   * Effect: state DONE with the outcome and body. false (nothing written) when the precondition fails.
   */
  completeKey(input: CompleteKeyInput): Promise<boolean>;
  /**
   * Precondition: the stored record of (scope, key) has this createdAt (any state).
   * Effect: the record is deleted. false (nothing written) when the precondition fails.
   */
  removeKey(claim: KeyClaim): Promise<boolean>;
}
