/** Messages between the main thread and the embedded store's thread (store-thread.ts). */

/** One named store operation and its plain-data arguments. */
export interface ThreadRequest {
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

/** An error as it crosses threads: StoreBusyError keeps its meaning (503 BUSY), others their name, message and code. */
export type ThreadError =
  | { readonly kind: 'busy'; readonly operation: string; readonly message: string }
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly code?: string; readonly stack?: string };

export type ThreadResult =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: ThreadError };

/**
 * Requests go over as batches (every call made in one turn of the main thread's event loop), and
 * results come back as batches (every operation that finished in one turn of the store thread's,
 * typically one group commit): one message each way per turn, not per operation, since waking a
 * thread costs more than copying a small object.
 */
export type ThreadReply =
  | { readonly kind: 'ready'; readonly methods: readonly string[] }
  | { readonly kind: 'failed'; readonly error: ThreadError }
  | { readonly kind: 'results'; readonly results: readonly ThreadResult[] };
