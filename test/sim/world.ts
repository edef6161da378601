import pg from 'pg';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/app/context.js';
import type { Clock, IdSource } from '../../src/ports/runtime.js';
import { createTestDatabase, type TestDatabase, type TestStore } from '../support/backend.js';
import { ScriptedProvider } from './scripted-provider.js';
import { sequentialIds } from './sim-ids.js';

/** The simulation's clock: time moves only when a step moves it. */
export class SimClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * What lives across one run's steps: the store (a data directory, and a schema on PostgreSQL), the
 * provider and the clock (both outside the process, so a restart keeps them), the ids, and the
 * node composed over them, which a restart replaces.
 */
export class SimWorld {
  readonly provider = new ScriptedProvider();
  readonly clock: SimClock;
  readonly ids: IdSource = sequentialIds();
  private current: Node | null = null;
  /** PostgreSQL only: a connection of the simulation's own, to see when the outbox's rows can be read. */
  private watcher: pg.Client | null = null;
  restarts = 0;

  private constructor(readonly database: TestDatabase, start: number) {
    this.clock = new SimClock(start);
  }

  static async open(store: TestStore, start: number): Promise<SimWorld> {
    const world = new SimWorld(await createTestDatabase({ store, prefix: 'ticketrush-sim-' }), start);
    try {
      await world.compose();
    } catch (error) {
      await world.database.drop();
      throw error;
    }
    return world;
  }

  get node(): Node {
    if (this.current === null) throw new Error('no node: the simulation world is closed');
    return this.current;
  }

  get ctx(): AppContext {
    return this.node.ctx;
  }

  /**
   * A node as a server composes it, except what the simulation must decide itself: no job runner
   * and no periodic sweeps or relay (the steps run that background work at chosen moments), no
   * listener, the scripted provider, the sequential ids and the simulation's clock.
   */
  private async compose(): Promise<void> {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      TICKETRUSH_DEMO: '0',
      TICKETRUSH_RATE_LIMITS: 'off',
      TICKETRUSH_SCRYPT_COST: '1024',
      ...this.database.env,
    });
    this.current = await composeNode(config, {
      logger: false, warmStore: false, jobs: false, outboxRelay: false, webRoot: null,
      clock: this.clock, ids: this.ids, paymentProvider: this.provider,
    });
  }

  /** Stops the node and composes a new one over the same data directory or schema (a process restart). */
  async restart(): Promise<void> {
    const node = this.node;
    this.current = null;
    await node.stop();
    await this.compose();
    this.restarts++;
  }

  /**
   * Waits until every outbox row this run wrote can be read by the relay. On PostgreSQL a row is
   * handed out only once every older transaction of the cluster has ended (src/adapters/postgres/outbox.ts,
   * the reader stops below its snapshot's xmin), and other test files share the cluster: without
   * this wait a relay pass could miss a row this step wrote, and a replay would differ. SQLite: at once.
   */
  async outboxReadable(timeoutMs = 10_000): Promise<void> {
    const url = this.database.env.TICKETRUSH_DATABASE_URL;
    const schema = this.database.env.TICKETRUSH_DATABASE_SCHEMA;
    if (url === undefined || schema === undefined) return;
    if (this.watcher === null) {
      this.watcher = new pg.Client({ connectionString: url });
      await this.watcher.connect();
    }
    const until = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await this.watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.outbox WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())`);
      if ((rows[0]?.n ?? 0) === 0) return;
      if (Date.now() > until) throw new Error(`outbox rows still unreadable after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    try {
      await this.watcher?.end();
      this.watcher = null;
      await this.current?.stop();
    } finally {
      this.current = null;
      await this.database.drop();
    }
  }
}
