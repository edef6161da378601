// The test passes: which suites run on which store. Read by vitest.config.ts (one vitest project
// per pass, so every pass of a run shares one pool of workers) and by scripts/run-tests.mjs (which
// passes a run asks for, and which latency-bound files then run alone). A suite is a file or a
// folder of test files.

/** The suites that touch the store: each runs once more on PostgreSQL (the postgres pass). */
export const bookingSuites = [
  ...[
    'booking-api',
    'best-available',
    'hold-states',
    'idempotency-takeover',
    'payments-tickets',
    'purchase-limit',
    'order-ownership',
    'checkin',
    'conditional-get',
    'roles',
    'engine-holes',
    'show-list',
    'usernames',
    'live-events',
    'door-organizer',
    'account-throttling',
    'availability',
    'pg-busy',
    'stale-accounts',
    'holds-orders',
    'door-desk',
    'organizer-shows',
    'tickets-pdf',
    'multi-process-read-model',
    'code-pools',
    'webhooks',
    'flash-sales',
    'bargains',
    'stripe',
    'discounts',
    'waitlist',
    'ops-metrics',
    'notifications',
    'audit-log',
    'refunds',
    'exchanges',
    'buying-limits',
    'blocklist',
    'idempotent-holds',
    'waiting-room',
    'load-shedding',
    'buyer-gate',
    'money',
    'campaign-caches',
    'hold-crash-retry',
  ].map((name) => `test/http/${name}.test.ts`),
  'test/race', 'test/restart/crash-recovery.test.ts', 'test/restart/killed-process-jobs.test.ts', 'test/restart/cancellation-resume.test.ts', 'test/contract', 'test/load', 'test/app',
  'test/cli/start-up.test.ts', 'test/cli/many-processes.test.ts', 'test/cli/workers.test.ts', 'test/cli/dependencies.test.ts',
  'test/cli/audit.test.ts',
  // The seeded money simulation (issue 32 item 5): the same seeds on PostgreSQL.
  'test/sim',
];
/** The Redis gate over PostgreSQL: in the postgres+redis passes only (it needs Redis; skipped, saying so, when none answers). */
export const gateSuites = ['test/gate'];
/**
 * The default run's third pass, on PostgreSQL + Redis: short (about 3 minutes on a 2-core machine),
 * the suites where the gate changes what happens: the gate's own, the multi-process rush (Redis
 * flushed mid-rush, the gate's audit) and the hold, order and payment paths through the gate.
 * `--only=postgres+redis` runs every booking suite on it instead.
 */
export const redisSuites = [...gateSuites, 'test/load/multi-process.test.ts', ...['hold-states', 'booking-api', 'payments-tickets'].map((name) => `test/http/${name}.test.ts`)];
/** The quick pass: pure domain, the store contract and the API through inject(), on SQLite. */
export const quickSuites = ['test/domain', 'test/contract', 'test/http'];

/** Latency-bound files: left out of the shared run and run alone after it, each pass its own, so no other file's load skews their figures. */
// The multi-process rush runs three servers and 300 buyers on its own too: beside other files its
// 60 s idempotency takeover and settling would race their load for the same cores.
export const alone = ['test/load/herd.test.ts', 'test/load/multi-process.test.ts'];

/**
 * The passes by name: the store their test nodes use (TICKETRUSH_TEST_STORE) and their suites
 * (none: every test file). `postgres+redis` is the default run's short third pass;
 * `postgres+redis-all` (npm run test:redis) runs every booking suite and the gate's on it.
 */
export const passes = {
  sqlite: { store: 'sqlite', suites: [] },
  quick: { store: 'sqlite', suites: quickSuites },
  postgres: { store: 'postgres', suites: bookingSuites },
  'postgres+redis': { store: 'postgres+redis', suites: redisSuites },
  'postgres+redis-all': { store: 'postgres+redis', suites: [...bookingSuites, ...gateSuites] },
};

/** Whether `file` (a path from the repository's root) is among `suites` (none: every file). */
export const selected = (file, suites) => suites.length === 0 || suites.some((s) => file === s || file.startsWith(`${s}/`));
