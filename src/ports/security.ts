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

/** What an admission token says (issue 24 item 2): this user may buy in this activity until then. */
export interface AdmissionClaims {
  readonly userId: string;
  readonly activityId: string;
  /** Epoch ms: the end of the admission window. */
  readonly expiresAt: number;
}

export type AdmissionCheck =
  | { readonly ok: true; readonly claims: AdmissionClaims }
  /** Why, for logs only: the answer is one code (ADMISSION_INVALID) whatever the reason. */
  | { readonly ok: false; readonly reason: 'too-large' | 'malformed' | 'signature' | 'expired' | 'other-user' | 'other-activity' };

/** Issues and checks admission tokens without any storage: a signature over the claims. */
export interface AdmissionTokens {
  issue(claims: AdmissionClaims): string;
  /** Checks size (before parsing), signature, expiry at `now`, and that it names this user and activity. */
  verify(token: string, expected: { readonly userId: string; readonly activityId: string; readonly now: number }): AdmissionCheck;
}
