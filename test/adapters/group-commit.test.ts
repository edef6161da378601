import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { groupCommit } from '../../src/adapters/sqlite/group-commit.js';

const busyFor = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** An in-memory database that counts the group commit's COMMITs, one per batch. */
function counting(): { db: Database.Database; commits: () => number } {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (unit INTEGER)');
  let commits = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    if (source !== 'COMMIT') return statement;
    const run = statement.run.bind(statement);
    return Object.assign(statement, { run: () => {
      commits++;
      return run();
    } });
  }) as typeof db.prepare;
  return { db, commits: () => commits };
}

it('shares one commit among the units that arrive together', async () => {
  const { db, commits } = counting();
  const gc = groupCommit(db, 256, 10_000, 1_000);
  await Promise.all(Array.from({ length: 50 }, (_, i) => gc.write('unit', () => db.prepare('INSERT INTO t (unit) VALUES (?)').run(i))));
  expect(commits()).toBe(1);
  expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 50 });
});

it('closes a batch once its units have run for the time budget, and yields to the event loop before the next', async () => {
  const { db, commits } = counting();
  const gc = groupCommit(db, 256, 10_000, 8);
  const ran: string[] = [];
  const writes = Array.from({ length: 10 }, (_, i) => gc.write('slow unit', () => {
    busyFor(3);
    ran.push(`unit ${i}`);
  }));
  // Queued after the first batch has started: it must run before the last units do.
  setImmediate(() => setImmediate(() => ran.push('other work')));
  await Promise.all(writes);
  // 3 ms units against an 8 ms budget: at most 3 a batch, so at least 4 commits...
  expect(commits()).toBeGreaterThanOrEqual(4);
  // ...and other work on the event loop got its turn between two batches, not after all ten.
  const other = ran.indexOf('other work');
  expect(other).toBeGreaterThan(0);
  expect(other).toBeLessThan(ran.length - 1);
});
