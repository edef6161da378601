import type { Clock } from '../../ports/runtime.js';

export const systemClock: Clock = { now: () => Date.now() };
