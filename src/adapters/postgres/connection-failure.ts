/**
 * Whether an error opening the store means PostgreSQL could not be reached or would not let us in
 * (the operator fixes the address, the server or the credentials), rather than a bug or a failed
 * migration: network errors, a connect timeout, authentication, a missing database, a server
 * starting up or shutting down.
 */
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const refusalCodes = new Set(['28P01', '28000', '3D000', '57P03', '57P01', '53300']);

export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (networkCodes.has(code) || refusalCodes.has(code))) return true;
  // node-postgres' own connect timeout and a connection cut during start-up carry no code.
  return /timeout expired|connection timeout|Connection terminated/i.test(error.message);
}
