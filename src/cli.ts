import { Command } from 'commander';
import { composeNode } from './compose.js';
import { ConfigError, loadConfig } from './config.js';

const program = new Command()
  .name('ticketrush')
  .description('Ticketing and flash-sale platform that holds up in an onsale rush');

program
  .command('start', { isDefault: true })
  .description('Start the HTTP server on the embedded store (configuration from the environment; see docs/operations.md)')
  .action(async () => {
    const node = await composeNode(loadConfig());
    const url = await node.listen();
    node.app.log.info({ url, dataDir: node.config.dataDir, docs: `${url}/docs` }, 'TicketRush is ready');
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      node.app.log.info({ signal }, 'shutting down');
      node.stop().then(() => process.exit(0), () => process.exit(1));
    };
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`ticketrush: configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`ticketrush: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
