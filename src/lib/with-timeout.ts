/**
 * Settles as `work` does, or rejects with `timedOut()` after `ms`: a call to another company
 * must never hold a request, a key or a background pass for longer than its bound.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
