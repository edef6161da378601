/**
 * What to tell the operator when the server cannot listen, in one line that names the address and
 * the variable that changes it; null for any other failure (reported as it is).
 */
export function listenFailure(error: unknown, host: string, port: number): string | null {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use: stop what listens there, or choose another port with PORT (for example PORT=${port === 65535 ? 3001 : port + 1})`;
  if (code === 'EACCES') return `port ${port} on ${host} may not be opened by this user: choose a port above 1023 with PORT`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine: choose another with HOST (127.0.0.1 by default)`;
  return null;
}
