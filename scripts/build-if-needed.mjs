// `npm start` and `npm test` build first when dist/ is missing or older than any source file: the
// server (src/ -> dist/, emitted without a second type check: `npm run typecheck` checks the
// types) and the web front end (web/ -> dist/web/). After `npm ci` (whose `prepare` builds) it
// does nothing. A web build that cannot run (say, an
// install without dev dependencies) is reported and skipped: the server then serves the API only.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
    const path = join(dir, entry.name);
    return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
const builtAt = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

const server = builtAt('dist/cli.js');
if (server === 0 || newest('src') > server) execSync('npx tsc -p tsconfig.build.json --noCheck', { stdio: 'inherit' });

const web = builtAt('dist/web/index.html');
const webSources = Math.max(newest('web/src'), newest('web/public'), builtAt('web/index.html'), builtAt('web/vite.config.ts'));
if (web === 0 || webSources > web) {
  try {
    execSync('npm run build:web --silent', { stdio: 'inherit' });
  } catch {
    console.warn('web front end not built (is vite installed? npm install); the server will serve the API only');
  }
}
