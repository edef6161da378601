export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

/** Signs ticket QR payloads so that a scanner holding only the public key can verify offline. */
export interface TicketSigner {
  readonly algorithm: string;
  readonly publicKeyPem: string;
  sign(payload: string): string;
  verify(payload: string, signature: string): boolean;
}
