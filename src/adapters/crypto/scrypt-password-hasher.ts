import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../ports/security.js';

/**
 * scrypt with a per-password salt; parameters travel with the hash, so a hash made at one cost
 * verifies at any later one and the cost can be raised. The cost N (TICKETRUSH_SCRYPT_COST, default
 * 16384: about 50 ms of one core) is lowered only where accounts are made by the thousand for
 * measurement (the test suite, drills), never in production.
 */
const params = { r: 8, p: 1, keyLength: 32, saltBytes: 16 } as const;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function scryptPasswordHasher(cost: number): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(params.saltBytes);
      const key = await derive(password, salt, { N: cost, r: params.r, p: params.p }, params.keyLength);
      return `scrypt$${cost}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
    async verify(password, stored) {
      const [scheme, n, r, p, salt, key] = stored.split('$');
      if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
      const expected = Buffer.from(key, 'base64');
      const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
      return timingSafeEqual(actual, expected);
    },
  };
}
