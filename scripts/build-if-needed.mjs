// `npm start` builds first when dist/ is missing or older than any source file.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
    const path = join(dir, entry.name);
    return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);

const built = existsSync('dist/cli.js') ? statSync('dist/cli.js').mtimeMs : 0;
if (built === 0 || newest('src') > built) execSync('npm run build --silent', { stdio: 'inherit' });
