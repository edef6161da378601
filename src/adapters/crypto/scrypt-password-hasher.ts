import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../ports/security.js';

/** scrypt with a per-password salt; parameters travel with the hash so they can be raised later. */
const params = { N: 16384, r: 8, p: 1, keyLength: 32, saltBytes: 16 } as const;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export const scryptPasswordHasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(params.saltBytes);
    const key = await derive(password, salt, { N: params.N, r: params.r, p: params.p }, params.keyLength);
    return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  },
  async verify(password, stored) {
    const [scheme, n, r, p, salt, key] = stored.split('$');
    if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
    const expected = Buffer.from(key, 'base64');
    const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
    return timingSafeEqual(actual, expected);
  },
};
