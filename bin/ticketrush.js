#!/usr/bin/env node
// The CLI runs the compiled code in dist/, which `npm ci` builds (the prepare script).
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/cli.js', import.meta.url))) {
  process.stderr.write('ticketrush: dist/ is missing: run `npm ci` or `npm run build` in the package first\n');
  process.exit(1);
}
await import('../dist/cli.js');
