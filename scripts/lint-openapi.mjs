// Lints docs/openapi.json with Redocly (recommended rules, redocly.yaml) and Spectral
// (spectral:oas, .spectral.yaml). Any error or warning from either fails. Both run offline:
// telemetry and update checks are off, and the document has no remote references.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = 'docs/openapi.json';
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const run = (name, args) => spawnSync(bin(name), args, { cwd: root, env, encoding: 'utf8', timeout: 120_000 });

let failed = false;

const redocly = run('redocly', ['lint', file, '--config', 'redocly.yaml', '--format', 'json']);
let totals;
try {
  totals = JSON.parse(redocly.stdout).totals;
} catch {
  totals = undefined;
}
if (totals === undefined || totals.errors > 0 || totals.warnings > 0) {
  failed = true;
  process.stderr.write(`redocly lint: ${totals === undefined ? 'did not run' : `${totals.errors} errors, ${totals.warnings} warnings`}\n`);
  process.stderr.write(run('redocly', ['lint', file, '--config', 'redocly.yaml', '--format', 'stylish']).stdout ?? '');
  process.stderr.write(redocly.stderr ?? '');
} else {
  process.stdout.write(`redocly lint ${file}: 0 errors, 0 warnings\n`);
}

const spectral = run('spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--fail-severity', 'warn', '--format', 'text']);
if (spectral.status !== 0) {
  failed = true;
  process.stderr.write(`spectral lint failed (exit ${spectral.status}):\n${spectral.stdout}${spectral.stderr}\n`);
} else {
  process.stdout.write(`spectral lint ${file}: 0 errors, 0 warnings\n`);
}

process.exit(failed ? 1 : 0);
