import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdSeats } from '../../src/app/holds.js';
import { adminClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * `start --no-jobs` serves the API and runs no jobs and no sweeps: a hold it places is left to
 * the processes that run jobs. Once this node starts its jobs (as `worker` does), the hold is freed.
 */
let t: TestNode;
let showId: string;
beforeAll(async () => {
  t = await startTestNode({ jobs: false });
  showId = await createShow(await adminClient(t.node.app), { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 2500 }] });
}, 60_000);
afterAll(async () => t?.close());

it('runs no release and no sweep with jobs off, and frees the overdue hold once jobs start', async () => {
  const user = await t.node.ctx.store.insertUser({ userId: 'usr_nojobs', username: 'nojobs', passwordHash: 'x', role: 'BUYER', createdAt: Date.now() });
  expect(user.ok).toBe(true);
  const { hold } = await holdSeats(t.node.ctx, { userId: 'usr_nojobs', showId, request: { kind: 'seats', seatIds: ['A-1-1'] }, holdSeconds: 1 });
  await sleep(hold.expiresAt - Date.now() + 700);
  expect((await t.node.ctx.store.getHold(hold.holdId))?.status).toBe('ACTIVE');
  t.node.startJobs();
  await eventually(async () => ((await t.node.ctx.store.getHold(hold.holdId))?.status === 'EXPIRED' ? true : undefined), 5_000, 'the hold expired');
});
