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
  /** Seats one buyer may hold and buy per show when neither the show nor the configuration says. */
  seatsPerUserDefault: 10,
  priceCentsMax: 100_000_000,
  titleLengthMax: 200,
  /** A show's description (plain text). */
  showDescriptionLengthMax: 2000,
  /** A show's picture address. */
  imageUrlLengthMax: 500,
  showDurationDaysMax: 366,
  usernameLengthMin: 3,
  usernameLengthMax: 64,
  passwordLengthMin: 8,
  passwordLengthMax: 256,
  idempotencyKeyLengthMax: 128,
  /** A blocklist entry's reason. */
  blockReasonLengthMax: 500,
  /** The longest we wait on one call to the payment provider. */
  providerCallMsMax: 15_000,
  /**
   * On SIGTERM, how long the sandbox may take to deliver the verdicts it already decided before
   * the listener closes (what is left is re-sent at the next start).
   */
  sandboxDrainMsMax: 5_000,
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
  /** Payments one page of reconciliation or refunds looks at. */
  paymentSweepBatchMax: 200,
  /**
   * Pages one run of a background pass reads at most; the pass's cursor carries the rest of its
   * backlog to the next run, so a run is bounded however large the backlog grows.
   */
  sweepPagesPerRunMax: 5,
  /** Refund passes one wake-up runs back to back (more asks wait for the periodic run). */
  refundPassesPerWakeMax: 3,
  /**
   * A periodic sweep's lease lasts this many of its periods (within the bounds below) unless
   * renewed: how long a sweep stays stopped when the process running it dies mid-run.
   */
  sweepLeasePeriods: 10,
  sweepLeaseMsMin: 5_000,
  sweepLeaseMsMax: 60_000,
  /** Tries of one queued job (BullMQ), 1 s, 2 s, 4 s ... apart; the sweeps are the net after that. */
  jobAttemptsMax: 5,
  /** Jobs one worker process runs at once. */
  jobConcurrencyMax: 16,
  /**
   * Enqueues one process may have waiting on Redis; past it an enqueue is refused at once (counted,
   * and the sweeps do that job), so a slow Redis never grows an unbounded backlog in memory.
   */
  jobEnqueuesInFlightMax: 10_000,
  /** How long after an admission a scan with the same nonce still counts as the same scan. */
  checkInRetrySecondsMax: 300,
  listPageSizeMax: 100,
  /** Webhook endpoints at most (every relayed page is matched against all of them). */
  webhooksMax: 100,
  /** Live holds one GET /me/holds answer lists at most (a buyer rarely has more than a few). */
  myHoldsPageSizeMax: 20,
  /** Accessible seats an organiser may mark per section. */
  accessibleSeatsPerSectionMax: 1_000,
  /**
   * Times a use case re-reads and re-decides after the store refused its plan as stale (someone
   * else moved first); past it the request answers 503 BUSY with Retry-After.
   */
  staleRetriesMax: 5,
  /** What a BUSY answer tells the client to wait before retrying, in seconds. */
  busyRetryAfterSeconds: 1,
  /**
   * Rows a best-available claim reads at most, nearest the preferred point first, so its cost
   * grows with the rows it looks at and not with the size of the show.
   */
  bestAvailableRowsMax: 40,
  /** Seats one INSERT statement of show creation writes at most (a show is written in chunks). */
  seatInsertChunkMax: 2_000,
  /** Seat states one page of a read-model load reads at most (a few milliseconds of work). */
  seatStatePageMax: 5_000,
});
