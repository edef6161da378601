import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { TicketSigner } from '../../ports/security.js';

/** Ed25519 over the QR payload; the public key is published so scanners verify offline. */
export function createEd25519TicketSigner(privateKeyPem: string): TicketSigner {
  const privateKey: KeyObject = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the ticket signing key must be an Ed25519 private key (PKCS#8 PEM)');
  const publicKey = createPublicKey(privateKey);
  return {
    algorithm: 'Ed25519',
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    sign: (payload) => sign(null, Buffer.from(payload), privateKey).toString('base64url'),
    verify(payload, signature) {
      const bytes = Buffer.from(signature, 'base64url');
      return bytes.length === 64 && verify(null, Buffer.from(payload), publicKey, bytes);
    },
  };
}
