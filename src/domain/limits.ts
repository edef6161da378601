/**
 * Policy bounds of the booking core, each with a unit in its name. Configuration may narrow some
 * of them (see src/config.ts) but never exceed them.
 */
export const limits = Object.freeze({
  seatsPerHoldMax: 10,
  /** What a request may list at all; beyond seatsPerHoldMax it gets a clear TOO_MANY_SEATS. */
  seatIdsPerRequestMax: 100,
  holdTtlSecondsMin: 1,
  holdTtlSecondsMax: 3600,
  holdTtlSecondsDefault: 600,
  holdExtensionsMax: 5,
  /** The hard cap on a hold's whole life, extensions included. */
  holdLifeSecondsMax: 7200,
  sectionsPerShowMax: 100,
  rowsPerSectionMax: 500,
  seatsPerRowMax: 500,
  seatsPerShowMax: 200_000,
  priceCentsMax: 100_000_000,
  titleLengthMax: 200,
  showDurationDaysMax: 366,
  usernameLengthMin: 3,
  usernameLengthMax: 64,
  passwordLengthMin: 8,
  passwordLengthMax: 256,
  idempotencyKeyLengthMax: 128,
  /** The longest we wait on one call to the payment provider. */
  providerCallMsMax: 15_000,
  /**
   * A key still IN_FLIGHT after this long belongs to a request that died with its process (the
   * provider call it waits on is bounded by providerCallMsMax), so a retry may take the key over.
   */
  idempotencyInFlightMsMax: 60_000,
  seatIdLengthMax: 32,
  /** A payment timestamp farther than this from our clock is refused (replay window). */
  signatureToleranceSeconds: 300,
  /** Holds freed per sweep transaction, so one sweep never stalls the booking path. */
  expirySweepBatchMax: 200,
  ticketIssueBatchMax: 100,
  /** How long after an admission a scan with the same nonce still counts as the same scan. */
  checkInRetrySecondsMax: 300,
  listPageSizeMax: 100,
});
