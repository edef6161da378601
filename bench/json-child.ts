import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs a bench script of this folder in a process of its own (a load generator must never share
 * the event loop it measures) with `job` as its one argument, and answers the JSON of its last
 * stdout line. Killed after `limitSeconds`, so a stuck run ends the bench instead of hanging it.
 */
export function runJsonChild<Job, Result>(script: string, job: Job, limitSeconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), limitSeconds * 1000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(killer);
      if (code !== 0) return reject(new Error(`${script} exited with ${String(code)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as Result);
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}
