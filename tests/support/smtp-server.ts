import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One received message, decoded. */
export type ReceivedEmail = {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  receivedAt: string;
};

export type TestSmtpServer = {
  /** Port of the SMTP listener on 127.0.0.1. */
  smtpPort: number;
  /** Base URL of the mailbox HTTP endpoint (GET /messages?to=…). */
  mailboxUrl: string;
  messages: ReceivedEmail[];
  stop: () => Promise<void>;
};

/** Parses a raw RFC 5322 message (MIME parts, encoded words, charsets) with mailparser. */
export async function parseEmail(raw: Buffer): Promise<Omit<ReceivedEmail, 'to' | 'receivedAt'> & { headerTo: string }> {
  const mail = await simpleParser(raw);
  // "Name <address>" per mailbox, names unquoted, as a reader writes them.
  const addresses = (v: AddressObject | AddressObject[] | undefined) =>
    (Array.isArray(v) ? v : v ? [v] : [])
      .flatMap((o) => o.value)
      .map((a) => (a.name ? `${a.name} <${a.address}>` : (a.address ?? '')))
      .join(', ');
  return {
    from: addresses(mail.from),
    headerTo: addresses(mail.to),
    subject: mail.subject ?? '',
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
  };
}

/**
 * An SMTP server on loopback that accepts any mail (no auth, no TLS) and keeps it in memory,
 * plus a tiny HTTP endpoint so test workers (other processes) can read the mailbox:
 * GET /messages?to=<address> → JSON array of ReceivedEmail (all messages when `to` is absent).
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedEmail[] = [];
  const smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 10 * 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', async () => {
        try {
          const parsed = await parseEmail(Buffer.concat(chunks));
          messages.push({
            from: parsed.from,
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject,
            text: parsed.text,
            html: parsed.html,
            receivedAt: new Date().toISOString(),
          });
          callback();
        } catch (err) {
          callback(err as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(0, '127.0.0.1', () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const mailbox = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/messages') {
      const to = url.searchParams.get('to')?.toLowerCase();
      const found = to ? messages.filter((m) => m.to.includes(to)) : messages;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(found));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => mailbox.listen(0, '127.0.0.1', resolve));
  const mailboxUrl = `http://127.0.0.1:${(mailbox.address() as AddressInfo).port}`;

  return {
    smtpPort,
    mailboxUrl,
    messages,
    stop: async () => {
      mailbox.closeAllConnections();
      await new Promise<void>((resolve) => mailbox.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
