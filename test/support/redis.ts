import { randomBytes } from 'node:crypto';

/** The shared test Redis (TICKETRUSH_TEST_REDIS_URL, default the local one). Tests never flush it: each uses a prefix of its own. */
export const testRedisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** A key prefix no other test (or run) shares. */
export const uniqueRedisPrefix = (what: string): string => `trtest:${what}:${Date.now().toString(36)}${randomBytes(4).toString('hex')}:`;
