/**
 * Named background jobs with JSON data, so a queue (BullMQ on Redis) can store them and a job
 * survives the process that scheduled it. The embedded default runs the same names in-process.
 * Every job has a de-duplication key: enqueueing a key that is already waiting is a no-op.
 */
export interface JobPayloads {
  /** A hold's release at its expiry (key `expire-hold:{holdId}`). */
  'expire-hold': { readonly holdId: string };
  /** Issue tickets of a paid order (key `issue-tickets:{orderId}`). */
  'issue-tickets': { readonly orderId: string };
  /** One delivery attempt of one webhook event (key `deliver-webhook:{deliveryId}:{attempt}`). */
  'deliver-webhook': { readonly deliveryId: string; readonly attempt: number };
}

export type JobName = keyof JobPayloads;

export interface JobOptions {
  /** De-duplication key, e.g. `expire-hold:{holdId}`. */
  readonly key: string;
  /** Epoch ms; absent: as soon as possible. */
  readonly runAt?: number;
}

export interface JobQueue {
  enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: JobOptions): Promise<void>;
  /** Drops a waiting job by its key (no-op when unknown or already running). */
  cancel(key: string): Promise<void>;
}
