/** The claims inside a ticket QR: `TR1.<base64url JSON>.<base64url Ed25519 signature>`. */
export interface Claims {
  readonly tid: string;
  readonly code: string;
  readonly show: string;
  readonly seat: string;
  /** The ticket's section (QRs issued before it was added lack it). */
  readonly sec?: string;
}

const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> => {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  const raw = atob(b64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
};

/** Imports the server's SPKI PEM public key for WebCrypto Ed25519. */
export async function importPublicKey(pem: string): Promise<CryptoKey> {
  const der = fromBase64Url(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  return crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
}

/** The claims of a genuine code, checked in the browser with the public key; null if forged or foreign. */
export async function verifyQr(key: CryptoKey, qr: string): Promise<Claims | null> {
  const parts = qr.trim().split('.');
  if (parts.length !== 3 || parts[0] !== 'TR1') return null;
  const [, body = '', signature = ''] = parts;
  try {
    const ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, fromBase64Url(signature), new TextEncoder().encode(`TR1.${body}`));
    if (!ok) return null;
    const claims = JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as Partial<Claims>;
    return [claims.tid, claims.code, claims.show, claims.seat].every((f) => typeof f === 'string') ? (claims as Claims) : null;
  } catch {
    return null;
  }
}
