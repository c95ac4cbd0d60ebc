import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

// ---------------------------------------------------------------------------------------------
// A small MIME reader: enough for what nodemailer writes (headers with encoded words, multipart
// trees, quoted-printable / base64 / 7bit / 8bit bodies, UTF-8 and Latin-1 charsets).

type Part = { headers: Map<string, string>; body: Buffer };

function splitHeadersAndBody(raw: Buffer): Part {
  const text = raw.toString('latin1');
  const match = /\r?\n\r?\n/.exec(text);
  const headerText = match ? text.slice(0, match.index) : text;
  const body = match ? raw.subarray(match.index + match[0].length) : Buffer.alloc(0);
  const headers = new Map<string, string>();
  // Unfold continuation lines, then split name: value.
  for (const line of headerText.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { headers, body };
}

function headerParam(value: string | undefined, param: string): string | undefined {
  if (!value) return undefined;
  const re = new RegExp(`;\\s*${param}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i');
  const m = re.exec(value);
  return m ? (m[1] ?? m[2]) : undefined;
}

function decodeCharset(bytes: Buffer, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset.toLowerCase()).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

function decodeQuotedPrintable(input: string): Buffer {
  const soft = input.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(soft.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeTransfer(body: Buffer, encoding = '7bit'): Buffer {
  switch (encoding.toLowerCase().trim()) {
    case 'base64':
      return Buffer.from(body.toString('latin1').replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.toString('latin1'));
    default:
      return body;
  }
}

/** RFC 2047 encoded words (=?charset?B|Q?…?=), adjacent words joined without the space between. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, charset: string, enc: string, data: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : decodeQuotedPrintable(data.replace(/_/g, ' '));
      return decodeCharset(bytes, charset.split('*')[0]);
    });
}

function collectBodies(part: Part, out: { text: string[]; html: string[] }) {
  const contentType = part.headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = headerParam(contentType, 'boundary');
    if (!boundary) return;
    const text = part.body.toString('latin1');
    const delimiter = `--${boundary}`;
    const pieces = text.split(delimiter).slice(1); // drop the preamble
    for (const piece of pieces) {
      if (piece.startsWith('--')) break; // closing delimiter
      const content = piece.replace(/^[ \t]*\r?\n/, '').replace(/\r?\n$/, '');
      collectBodies(splitHeadersAndBody(Buffer.from(content, 'latin1')), out);
    }
    return;
  }
  if (/attachment/i.test(part.headers.get('content-disposition') ?? '')) return;
  const decoded = decodeCharset(
    decodeTransfer(part.body, part.headers.get('content-transfer-encoding')),
    headerParam(contentType, 'charset') ?? 'utf-8',
  );
  if (type === 'text/html') out.html.push(decoded);
  else if (type === 'text/plain') out.text.push(decoded);
}

/** Parses a raw RFC 5322 message into subject, text and HTML. */
export function parseEmail(raw: Buffer): Omit<ReceivedEmail, 'to' | 'receivedAt'> & { headerTo: string } {
  const root = splitHeadersAndBody(raw);
  const out = { text: [] as string[], html: [] as string[] };
  collectBodies(root, out);
  return {
    from: decodeEncodedWords(root.headers.get('from') ?? ''),
    headerTo: decodeEncodedWords(root.headers.get('to') ?? ''),
    subject: decodeEncodedWords(root.headers.get('subject') ?? ''),
    text: out.text.join('\n'),
    html: out.html.join('\n'),
  };
}

// ---------------------------------------------------------------------------------------------

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
      stream.on('end', () => {
        try {
          const parsed = parseEmail(Buffer.concat(chunks));
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
