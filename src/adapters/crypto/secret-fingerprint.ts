import { createHash, createPublicKey } from 'node:crypto';

/**
 * What processes compare to agree on a secret without showing it: SHA-256 of the secret (of the
 * public key for the ticket signing key, so the same key in another PEM layout still agrees),
 * under a label so the digest is of no use as a digest of the secret elsewhere. 16 hex characters
 * are plenty to tell two secrets apart and little to print.
 */
export function secretFingerprint(name: string, value: string): string {
  const material = name === 'ticketSigningKeyPem' ? createPublicKey(value).export({ format: 'der', type: 'spki' }) : Buffer.from(value, 'utf8');
  return createHash('sha256').update(`ticketrush secret fingerprint\0${name}\0`).update(material).digest('hex').slice(0, 16);
}
