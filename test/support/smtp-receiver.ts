import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts, parsed; it can go down and come back on the same port. */
export interface SmtpReceiver {
  readonly port: number;
  readonly messages: ParsedMail[];
  /** Messages to this address. */
  to(address: string): ParsedMail[];
  /** Stops listening (connections are refused until start). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ParsedMail[] = [];
  const make = () => new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        messages.push(mail);
        callback();
      }, (error: Error) => callback(error));
    },
  });
  let server = make();
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
  });
  const port = await listen(0);
  let up = true;
  const stop = async () => {
    if (!up) return;
    up = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    messages,
    to: (address) => messages.filter((m) => (Array.isArray(m.to) ? m.to : m.to === undefined ? [] : [m.to]).some((t) => t.value.some((v) => v.address === address))),
    stop,
    async start() {
      if (up) return;
      server = make();
      await listen(port);
      up = true;
    },
    close: stop,
  };
}
