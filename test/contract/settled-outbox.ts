import type { OutboxEvent, Store } from '../../src/ports/engine/index.js';

/**
 * The outbox rows after `from` that `keep` selects, read until `count` of them are there (or 5 s
 * pass), then returned. PostgreSQL hands a row out only once every older transaction of the
 * cluster has finished (the reader stops below its snapshot's xmin, src/adapters/postgres/outbox.ts),
 * and other test files run their transactions on the same cluster at the same time: a row just
 * committed may take a moment to appear, and a head read just before may come before rows the
 * set-up committed, so tests select the rows they look at.
 */
export async function settledOutbox(store: Store, from: string | null, count: number, keep: (event: OutboxEvent) => boolean): Promise<OutboxEvent[]> {
  const until = Date.now() + 5_000;
  for (;;) {
    const found: OutboxEvent[] = [];
    let position = from;
    for (;;) {
      const page = await store.readOutbox(position, 100);
      found.push(...page.events.filter(keep));
      if (page.events.length < 100) break;
      position = page.position;
    }
    if (found.length >= count || Date.now() > until) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
