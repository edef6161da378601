/**
 * Bounds of the live seat-change stream (GET /shows/{id}/events), each with its unit. The number
 * of connections a process accepts is configuration (TICKETRUSH_LIVE_CONNECTIONS_MAX).
 */
export const liveLimits = Object.freeze({
  /** Seat changes remembered per show for resuming clients; one further behind is told to reload. */
  changeLogSeatsMax: 20_000,
  /** Changes are sent to each client at most this often (a few events a second at most). */
  batchIntervalMs: 250,
  /** A comment line is sent when nothing else was for this long, so proxies keep the stream open. */
  heartbeatIntervalMs: 15_000,
  /** A client whose socket holds more unsent bytes than this is too slow: it is dropped. */
  clientBufferBytesMax: 256 * 1024,
  /** Seconds of hold history kept to answer "holds per minute". */
  holdRateWindowSeconds: 60,
});
