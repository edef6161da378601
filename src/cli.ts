import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DrillOptionError, drillDefaults, expiryOutageDefaults, hotSeatDefaults, paymentJitterDefaults, resolveDrillOptions, rushDefaults, type RawDrillOptions } from './drill/options.js';
import { listenFailure } from './lib/listen-failure.js';

// Only commander and the drill's option parser are loaded up front, so `--version` and `--help`
// answer at once: each command imports what it needs (the server, the store drivers, the drill's
// client) when it runs.

/** The version people see is the package's own, read from the package.json shipped beside dist/. */
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command()
  .name('ticketrush')
  .description('Ticketing and flash-sale platform that holds up in an onsale rush')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError('(run ticketrush --help for the commands and options)');

/** A commander parser for whole numbers from `min` to `max`. */
const wholeNumber = (min: number, max: number) => (raw: string): number => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}`);
  return value;
};

/** More workers than this only queue for the same cores. */
const workersMax = availableParallelism() * 4;

program
  .command('start', { isDefault: true })
  .description('Start the HTTP server on the embedded store (default command; configuration from the environment, see docs/operations.md). '
    + 'It also runs the background jobs and sweeps unless --no-jobs')
  .option('--no-jobs', 'serve the API only: run no jobs and no sweeps (run `ticketrush worker` beside it)')
  // `start` is the default, so commander hands it any word it does not know as a command: take
  // them here and refuse them by name, instead of starting a server or a vague arity error.
  .allowExcessArguments(true)
  .option('--workers <n>', `HTTP processes sharing one port (node:cluster), to use every core; needs TICKETRUSH_DATABASE_URL (1 to ${workersMax})`, wholeNumber(1, workersMax), 1)
  .action(async (options: { workers: number; jobs: boolean }, command: Command) => {
    const [unknown] = command.args;
    if (unknown !== undefined) program.error(`error: unknown command '${unknown}'`, { code: 'commander.unknownCommand', exitCode: 2 });
    const [{ composeNode, describeStore }, { loadConfig }] = await Promise.all([import('./compose.js'), import('./config.js')]);
    const config = loadConfig();
    if (options.workers > 1 && cluster.isPrimary) {
      if (config.database.kind === 'sqlite') {
        program.error(`error: --workers ${options.workers} needs TICKETRUSH_DATABASE_URL: on the embedded SQLite store one process owns the database file (${config.database.filename}); start one process, or use PostgreSQL`, { exitCode: 2 });
      }
      const { runClusterPrimary } = await import('./cluster-primary.js');
      runClusterPrimary({ workers: options.workers });
      return;
    }
    const node = await composeNode(config, { jobs: options.jobs });
    let url: string;
    try {
      url = await node.listen();
    } catch (error) {
      const failure = listenFailure(error, config.host, config.port);
      if (failure === null) throw error;
      // One line the operator can act on (which port, which variable), not a stack trace.
      await node.stop().catch(() => undefined);
      process.stderr.write(`ticketrush: ${failure}\n`);
      process.exit(1);
    }
    const store = describeStore(config.database);
    const publicUrl = config.publicUrl === '' ? {} : { publicUrl: config.publicUrl };
    node.app.log.info({ url, ...publicUrl, store, dataDir: config.dataDir, docs: `${url}/docs`, jobs: options.jobs }, `TicketRush is ready at ${url} (store: ${store})`);
    stopOnSignals(node);
  });

program
  .command('worker')
  .description('Run the background jobs and periodic sweeps only, with no HTTP server (beside API processes started with --no-jobs; see docs/operations.md)')
  .action(async () => {
    const [{ composeNode, describeStore }, { loadConfig }] = await Promise.all([import('./compose.js'), import('./config.js')]);
    const config = loadConfig();
    const node = await composeNode(config, { jobs: true });
    node.startJobs();
    const store = describeStore(config.database);
    const queue = config.redis === null ? 'in-process' : 'BullMQ';
    node.app.log.info({ store, queue, holder: node.holder }, `TicketRush worker is running jobs (store: ${store}, queue: ${queue})`);
    // Its timers are unref'd (they must not hold a server's process open at stop); with no
    // listener this keeps the worker alive until a signal stops it.
    setInterval(() => undefined, 3_600_000);
    stopOnSignals(node);
  });

/** SIGINT and SIGTERM stop the node once (jobs finish, the store closes), then the process exits. */
function stopOnSignals(node: { app: { log: { info(details: object, message: string): void } }; stop(): Promise<void> }): void {
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    node.app.log.info({ signal }, 'shutting down');
    node.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

const drill = program.command('drill').description('Drills against a server: load with an audit at the end (see docs/operations.md, Drills)');
drill
  .command('sellout')
  .description('Sell a show out with simulated buyers (hold → order → pay → ticket), then audit it over the API and report. '
    + 'Without --url it starts its own server on a fresh temporary data directory. Exits 1 when the audit fails')
  .option('--seats <n>', 'seats in the show', wholeNumber(1, 200_000), drillDefaults.seats)
  .option('--buyers <n>', 'simulated buyers, each one hold → order → pay at a time (the concurrency)', wholeNumber(1, 10_000), drillDefaults.buyers)
  .option('--seats-per-hold <n>', 'seats a buyer holds and buys at a time', wholeNumber(1, 100), drillDefaults.seatsPerHold)
  .option('--hold-seconds <n>', 'how long each hold lasts', wholeNumber(1, 3600), drillDefaults.holdSeconds)
  .addOption(new Option('--pick <how>', 'named seats from the seat map, or best available picked by the server').choices(['seats', 'best']).default(drillDefaults.pick))
  .option('--connections <n>', 'keep-alive connections to the server (default: 1.5 per buyer, at least 4)', wholeNumber(1, 10_000))
  .option('--tickets-in-flight <n>', 'orders a buyer may leave waiting for tickets while it buys on', wholeNumber(1, 1_000), drillDefaults.ticketsInFlightPerBuyer)
  .option('--ticket-timeout <seconds>', 'longest wait for an order to be TICKETED after payment', wholeNumber(1, 3_600), drillDefaults.ticketTimeoutSeconds)
  .option('--deadline <seconds>', 'stop selling after this long (the audit then fails)', wholeNumber(1, 86_400), drillDefaults.deadlineSeconds)
  .option('--url <url>', 'a running server to drill instead of an embedded one (needs an admin account)')
  .option('--out <dir>', 'where report.json, report.html (and server.log) go (default: ./drill-results/<timestamp>)')
  .option('--admin-user <name>', 'admin account that creates the show with --url (default: TICKETRUSH_ADMIN_USER)')
  .option('--admin-password <password>', 'its password (default: TICKETRUSH_ADMIN_PASSWORD)')
  .action(async (raw: RawDrillOptions) => {
    let options;
    try {
      options = resolveDrillOptions(raw);
    } catch (error) {
      if (error instanceof DrillOptionError) program.error(`error: ${error.message}`, { exitCode: 2 });
      throw error;
    }
    // Loaded on demand, so `start` never loads the drill's client.
    const { runSellout } = await import('./drill/runner.js');
    process.exitCode = await runSellout(options);
  });

/** The options every drill shares with the sell-out, with the drill's own defaults. */
function commonDrillOptions(command: Command, defaults: { seats: number; buyers: number }, withUrl: boolean): Command {
  command
    .option('--seats <n>', 'seats in the show', wholeNumber(1, 200_000), defaults.seats)
    .option('--buyers <n>', 'simulated buyers (accounts), each one hold → order → pay at a time', wholeNumber(1, 10_000), defaults.buyers)
    .option('--seats-per-hold <n>', 'seats a buyer holds and buys at a time in the sell-out', wholeNumber(1, 100), drillDefaults.seatsPerHold)
    .option('--hold-seconds <n>', 'how long each hold of the sell-out lasts', wholeNumber(1, 3600), drillDefaults.holdSeconds)
    .option('--connections <n>', 'keep-alive connections to the server (default: 1.5 per buyer, at least 4)', wholeNumber(1, 10_000))
    .option('--ticket-timeout <seconds>', 'longest wait for an order to be TICKETED after payment', wholeNumber(1, 3_600), drillDefaults.ticketTimeoutSeconds)
    .option('--deadline <seconds>', 'stop selling after this long (the audit then fails)', wholeNumber(1, 86_400), 110)
    .option('--out <dir>', 'where report.json, report.html (and server.log) go (default: ./drill-results/<timestamp>)');
  if (withUrl) {
    command
      .option('--url <url>', 'a running server to drill instead of an embedded one (needs an admin account)')
      .option('--admin-user <name>', 'admin account that creates the show with --url (default: TICKETRUSH_ADMIN_USER)')
      .option('--admin-password <password>', 'its password (default: TICKETRUSH_ADMIN_PASSWORD)');
  }
  return command;
}

type PlanName = 'rush' | 'hot-seat' | 'payment-jitter' | 'expiry-outage';

async function runPlanned(name: PlanName, raw: RawDrillOptions & Record<string, unknown>): Promise<void> {
  let options;
  try {
    options = resolveDrillOptions({ ...raw, pick: 'seats', ticketsInFlight: drillDefaults.ticketsInFlightPerBuyer });
  } catch (error) {
    if (error instanceof DrillOptionError) program.error(`error: ${error.message}`, { exitCode: 2 });
    throw error;
  }
  const drills = await import('./drill/drills.js');
  const n = (key: string): number => raw[key] as number;
  const plan = name === 'rush'
    ? drills.rushPlan({ admitPerMinute: n('admitPerMinute'), admissionSeconds: n('admissionSeconds'), bots: n('bots'), opensInSeconds: n('opensIn'), queueDeadlineSeconds: n('queueDeadline') })
    : name === 'hot-seat'
      ? drills.hotSeatPlan({ crowd: n('crowd'), hotSeats: n('hotSeats'), concurrency: n('concurrency'), conflictP99MaxMs: n('conflictP99Max'), answerMaxMs: n('answerMax') })
      : name === 'payment-jitter'
        ? drills.paymentJitterPlan({ providerDelayMs: n('providerDelay'), providerErrorRate: n('providerErrorRate'), duplicateRate: n('duplicateRate'), callbackDelayMsMax: n('callbackDelayMax'), declineRate: n('declineRate') })
        : drills.expiryOutagePlan({ outageSeconds: n('outageSeconds'), lapsingHolds: n('lapsingHolds'), lapseSeconds: n('lapseSeconds'), releaseBoundSeconds: n('releaseBound') });
  const { runDrill } = await import('./drill/runner.js');
  process.exitCode = await runDrill(options, plan);
}

const share = (raw: string): number => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new InvalidArgumentError('a number from 0 to 1');
  return value;
};

commonDrillOptions(drill.command('rush')
  .description('A rush through the waiting room: buyers join the queue before the sale opens, are admitted at the set rate, hold, order and pay with their '
    + 'admission tokens, while bots hammer the holds without queueing; reports admissions per minute, fairness, refusals by code, then audits. '
    + 'A server without a waiting room (404) gets a plain rush'), rushDefaults, true)
  .option('--admit-per-minute <n>', 'the room\'s admission rate', wholeNumber(1, 60_000), rushDefaults.admitPerMinute)
  .option('--admission-seconds <n>', 'how long an admission lasts', wholeNumber(30, 3_600), rushDefaults.admissionSeconds)
  .option('--bots <n>', 'accounts that skip the queue and hammer the holds', wholeNumber(0, 1_000), rushDefaults.bots)
  .option('--opens-in <seconds>', 'the sale opens this long after the show is created (everyone joins before)', wholeNumber(1, 60), rushDefaults.opensInSeconds)
  .option('--queue-deadline <seconds>', 'the queue stage gives up after this long', wholeNumber(1, 600), rushDefaults.queueDeadlineSeconds)
  .action((raw: RawDrillOptions & Record<string, unknown>) => runPlanned('rush', raw));

commonDrillOptions(drill.command('hot-seat')
  .description('Thousands of buyers on the same few seats (a winner gives its seat straight back): conflicts answered fast, no lock wait past the bound, p99 '
    + 'reported; then the rest of the show sold out and audited'), hotSeatDefaults, true)
  .option('--crowd <n>', 'hold attempts, one a simulated buyer, spread over the accounts', wholeNumber(1, 100_000), hotSeatDefaults.crowd)
  .option('--hot-seats <n>', 'the seats everyone wants', wholeNumber(1, 100), hotSeatDefaults.hotSeats)
  .option('--concurrency <n>', 'attempts in flight at once', wholeNumber(1, 2_000), hotSeatDefaults.concurrency)
  .option('--conflict-p99-max <ms>', 'bound on the p99 of conflict answers', wholeNumber(1, 60_000), hotSeatDefaults.conflictP99MaxMs)
  .option('--answer-max <ms>', 'bound on any answer (a lock wait past it fails the drill)', wholeNumber(1, 60_000), hotSeatDefaults.answerMaxMs)
  .action((raw: RawDrillOptions & Record<string, unknown>) => runPlanned('hot-seat', raw));

commonDrillOptions(drill.command('payment-jitter')
  .description('Sell a show out through a provider that is slow, fails calls, duplicates and reorders callbacks, with card holders declining some payments '
    + '(faults injected inside a server the drill starts itself); the audit proves every paid order ticketed once and every failed one released'), paymentJitterDefaults, false)
  .option('--provider-delay <ms>', 'each provider call answers this late', wholeNumber(0, 10_000), paymentJitterDefaults.providerDelayMs)
  .option('--provider-error-rate <share>', 'share of provider calls that fail', share, paymentJitterDefaults.providerErrorRate)
  .option('--duplicate-rate <share>', 'share of callbacks sent twice', share, paymentJitterDefaults.duplicateRate)
  .option('--callback-delay-max <ms>', 'callbacks arrive after a random delay up to this (out of order)', wholeNumber(0, 60_000), paymentJitterDefaults.callbackDelayMsMax)
  .option('--decline-rate <share>', 'share of payments the card holder declines (those seats are sold again)', share, paymentJitterDefaults.declineRate)
  .action((raw: RawDrillOptions & Record<string, unknown>) => runPlanned('payment-jitter', raw));

commonDrillOptions(drill.command('expiry-outage')
  .description('Stop the expiry job for a while (inside a server the drill starts itself) while holds lapse, try to buy from them, then check every lapsed '
    + 'hold is released within the bound once the job is back; then sell out and audit'), expiryOutageDefaults, false)
  .option('--outage-seconds <n>', 'the expiry job is stopped for the server\'s first N seconds', wholeNumber(5, 100), expiryOutageDefaults.outageSeconds)
  .option('--lapsing-holds <n>', 'holds taken and abandoned in the outage', wholeNumber(1, 10_000), expiryOutageDefaults.lapsingHolds)
  .option('--lapse-seconds <n>', 'their life', wholeNumber(1, 30), expiryOutageDefaults.lapseSeconds)
  .option('--release-bound <seconds>', 'every lapsed hold released within this once the job is back', wholeNumber(1, 60), expiryOutageDefaults.releaseBoundSeconds)
  .action((raw: RawDrillOptions & Record<string, unknown>) => runPlanned('expiry-outage', raw));

program
  .command('audit')
  .description('Check the configured store\'s inventory and money for consistency, read-only beside a running server (same environment): '
    + 'sold never above capacity, no seat in two tickets, counted stock = capacity − held − sold, paid orders ticketed and overdue holds released within the bound, '
    + 'the provider\'s ledger agrees with the orders, the Redis gate with the store (when TICKETRUSH_REDIS_URL is set). Exit 0 clean, 1 violations, 2 could not run (missing, empty or unreachable store or Redis)')
  .option('--json', 'print the report as JSON')
  .option('--bound <seconds>', 'how long a PAID order may stay unticketed, or an expired hold ACTIVE, before it is a violation (default: TICKETRUSH_AUDIT_BOUND_SECONDS, 60)', wholeNumber(1, 86_400))
  .action(async (options: { json?: boolean; bound?: number }) => {
    const { runAuditCommand } = await import('./audit-command.js');
    process.exitCode = await runAuditCommand({ json: options.json === true, ...(options.bound === undefined ? {} : { boundSeconds: options.bound }) });
  });

const importCommand = program.command('import').description('Load data into the configured store (beside a running server or not)');
importCommand
  .command('codes')
  .description('Import the codes of a CSV file (one code a line, or a `code` column) into a code pool; idempotent, committed in batches of 1,000')
  .requiredOption('--pool <poolId>', 'the code pool')
  .argument('<file>', 'the CSV file')
  .action(async (file: string, options: { pool: string }) => {
    const { importCodesFromFile } = await import('./data-commands.js');
    await importCodesFromFile(options.pool, file);
  });

const exportCommand = program.command('export').description('Write sale results as CSV (UTF-8 with BOM, RFC 4180), the same files the admin routes serve');
const exportKinds = [
  ['orders', "a show's orders", 'show', 'the show'],
  ['tickets', "a show's tickets", 'show', 'the show'],
  ['winners', "a code pool's winners", 'pool', 'the code pool'],
  ['flash-sale-orders', "a flash sale's orders", 'flash-sale', 'the flash sale'],
  ['bargain-orders', "a bargain's bargain orders", 'bargain', 'the bargain'],
] as const;
for (const [kind, what, option, named] of exportKinds) {
  exportCommand
    .command(kind)
    .description(`Export ${what}`)
    .requiredOption(`--${option} <id>`, named)
    .option('--out <file>', 'where to write (default: the export\'s own file name, here)')
    .action(async (options: { show?: string; pool?: string; flashSale?: string; bargain?: string; out?: string }) => {
      const { exportToFile } = await import('./data-commands.js');
      await exportToFile(kind, (options.show ?? options.pool ?? options.flashSale ?? options.bargain) as string, options.out);
    });
}

program.parseAsync(process.argv).catch(async (error: unknown) => {
  const [{ ConfigError, DependencyUnreachableError }, { AppError }] = await Promise.all([import('./config.js'), import('./app/errors.js')]);
  if (error instanceof ConfigError) {
    process.stderr.write(`ticketrush: configuration error: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof DependencyUnreachableError) {
    // One line the operator acts on (which service, which address, which variable), no stack.
    process.stderr.write(`ticketrush: ${error.message}\n`);
    process.exit(1);
  }
  // A refusal of a data command (no such pool or show): its code and words, not a stack trace.
  if (error instanceof AppError) {
    process.stderr.write(`ticketrush: ${error.code}: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`ticketrush: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
