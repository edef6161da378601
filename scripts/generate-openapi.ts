// Writes docs/openapi.json from the route schemas, by building the real HTTP app without
// listening. `--check` fails instead of writing when the file is out of date (the docs test
// does the same comparison in `npm test`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeNode } from '../src/compose.js';
import { loadConfig } from '../src/config.js';

export const openApiFile = resolve(fileURLToPath(new URL('../docs/openapi.json', import.meta.url)));

export async function renderOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-openapi-'));
  try {
    const node = await composeNode(loadConfig({ TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DEMO: '0' }), { logger: false });
    try {
      await node.app.ready();
      return `${JSON.stringify(node.app.swagger(), null, 2)}\n`;
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rendered = await renderOpenApi();
  if (process.argv.includes('--check')) {
    const current = readFileSync(openApiFile, 'utf8');
    if (current !== rendered) {
      process.stderr.write('docs/openapi.json is out of date: run npm run docs:openapi\n');
      process.exit(1);
    }
  } else {
    writeFileSync(openApiFile, rendered);
    process.stdout.write(`wrote ${openApiFile}\n`);
  }
}
