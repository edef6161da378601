import cliProgress from 'cli-progress';

export interface ProgressFigures {
  readonly ticketed: number;
  readonly held: number;
  readonly refusals: number;
  readonly seconds: number;
}

export interface Progress {
  update(figures: ProgressFigures): void;
  stop(): void;
}

/** Plain lines this often when the output is not a terminal (a CI log, a pipe). */
const plainLineEveryMs = 2_000;

/**
 * A live bar of seats ticketed when stdout is a terminal; otherwise a plain line every few
 * seconds, so logs stay readable.
 */
export function createProgress(total: number, stream: NodeJS.WriteStream = process.stdout): Progress {
  if (stream.isTTY === true) {
    const bar = new cliProgress.SingleBar({
      stream,
      format: 'sell-out |{bar}| {percentage}% | {value}/{total} seats ticketed | {held} held | {rate} seats/s | {refusals} refusals | {seconds}s',
      hideCursor: true,
      barsize: 30,
      fps: 5,
    }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { held: 0, rate: 0, refusals: 0, seconds: '0.0' });
    return {
      update: (f) => bar.update(f.ticketed, { held: f.held, refusals: f.refusals, seconds: f.seconds.toFixed(1), rate: rateOf(f) }),
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  return {
    update(f) {
      const now = Date.now();
      if (now - lastLine < plainLineEveryMs) return;
      lastLine = now;
      stream.write(`drill: ${f.seconds.toFixed(1)} s: ${f.ticketed}/${total} seats ticketed, ${f.held} held, ${rateOf(f)} seats/s, ${f.refusals} refusals\n`);
    },
    stop() {},
  };
}

function rateOf(f: ProgressFigures): number {
  return f.seconds > 0 ? Math.round(f.ticketed / f.seconds) : 0;
}
