import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { enqueue } from '../../app/queue/boss';
import { startWorkers } from '../../jobs/worker';
import { deliverEmail, queueEmail, renderEmail, type EmailMessage } from '../../app/services/mail.server';
import { loadEnv } from '../../app/runtime/env.server';
import { getLogger } from '../../app/runtime/logger.server';

// A real SMTP peer on a free loopback port. It can be told to refuse the next message (451) to
// exercise a retry.
type Received = { to: string[]; raw: string };
const received: Received[] = [];
let refuseNext = false;
// When set, the next message's DATA is answered only once `release` is called (a slow mail server).
let hold: { reached: () => void; release: Promise<void> } | undefined;
const smtp = new SMTPServer({
  // Closing waits this long for the mail transport's idle pooled connection (30 s by default) before
  // ending it; nothing is in flight by then.
  closeTimeout: 200,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    let raw = '';
    stream.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    stream.on('end', async () => {
      const held = hold;
      hold = undefined;
      if (held) {
        held.reached();
        await held.release;
      }
      if (refuseNext) {
        refuseNext = false;
        const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
        return callback(err);
      }
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
      callback();
    });
  },
});

// `env` is parsed once per process (each test file runs in its own process): point this
// process's configuration at the SMTP peer, or take SMTP_URL away for the outbox path.
const env = loadEnv();
const useSmtp = (url: string | undefined) => {
  env.SMTP_URL = url;
};
let smtpUrl = '';

beforeAll(async () => {
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => smtp.close(() => r())));

const unique = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const message = (key: string, to = `${key}@example.com`): EmailMessage => ({
  messageKey: key,
  to,
  template: 'set-password',
  language: 'en',
  params: { name: 'Ada Lovelace', link: `http://localhost:3999/reset-password?token=${key}&email=${encodeURIComponent(to)}` },
});
const mailsTo = (to: string) => received.filter((m) => m.to.includes(to));

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Before any worker runs (the next describe starts them): what a worker would fetch first.
describe('priority', () => {
  beforeAll(() => useSmtp(smtpUrl));

  // Fails without the priority: a reset waited behind every sign-up queued before it.
  it('a password reset queued after a burst of sign-ups is taken first', async () => {
    const burst = Array.from({ length: 30 }, (_, i) => message(unique(`prio-signup-${i}`)));
    const reset = { ...message(unique('prio-reset')), template: 'reset-password' as const };
    await sql.begin(async (tx) => {
      for (const m of burst) await queueEmail(m, tx);
    });
    await queueEmail(reset);
    // The order in which pg-boss's fetch takes jobs (priority desc, then age), over this test's
    // jobs only: other test files share the queue, and fetching their jobs would steal them.
    const order = await sql<{ key: string; priority: number }[]>`
      SELECT data->>'messageKey' AS key, priority FROM pgboss.job
      WHERE name = 'send-email' AND data->>'messageKey' LIKE 'prio-%'
      ORDER BY priority DESC, created_on, id`;
    expect(order).toHaveLength(31);
    expect(order[0]).toEqual({ key: reset.messageKey, priority: 10 });
    expect(order.slice(1).every((row) => row.priority === 0)).toBe(true);
    await sql`DELETE FROM pgboss.job WHERE name = 'send-email' AND data->>'messageKey' LIKE 'prio-%'`;
  });
});

describe('send-email job over SMTP', () => {
  beforeAll(async () => {
    useSmtp(smtpUrl);
    await startWorkers();
  });

  it('a committed queueEmail is delivered by the worker with HTML and plain-text parts', async () => {
    const msg = message(unique('job'));
    await sql.begin(async (tx) => {
      await queueEmail(msg, tx);
    });
    await waitFor(() => mailsTo(msg.to).length > 0, 'the e-mail at the SMTP peer');
    const [mail] = mailsTo(msg.to);
    expect(mail!.raw).toContain('Subject: Set your Postforge password');
    expect(mail!.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail!.raw).toMatch(/Content-Type: text\/html/i);
    expect(mail!.raw.replace(/=\r?\n/g, '')).toContain(msg.messageKey);
    await waitFor(async () => {
      const [row] = await sql<
        { sentAt: Date | null }[]
      >`SELECT sent_at AS "sentAt" FROM email_outbox WHERE message_key = ${msg.messageKey}`;
      return Boolean(row?.sentAt);
    }, 'the outbox row marked sent');
    const [row] = await sql<{ transport: string; to: string }[]>`
      SELECT transport, to_address AS "to" FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(row).toEqual({ transport: 'smtp', to: msg.to });
  });

  it('two jobs for the same message send it once', async () => {
    const msg = message(unique('twice'));
    // No singleton key: two real jobs, as a retry after an expiry would produce.
    await enqueue('send-email', msg);
    await enqueue('send-email', msg);
    await waitFor(async () => {
      const [row] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND data->>'messageKey' = ${msg.messageKey} AND state = 'completed'`;
      return row!.n === 2;
    }, 'both jobs completed');
    expect(mailsTo(msg.to)).toHaveLength(1);
  });

  it('delivering the same messageKey twice sends once', async () => {
    const msg = message(unique('idem'));
    expect(await deliverEmail(msg)).toBe('sent');
    expect(await deliverEmail(msg)).toBe('already-sent');
    expect(mailsTo(msg.to)).toHaveLength(1);
  });

  it('two deliveries of the same message at the same moment send it once', async () => {
    const msg = message(unique('race'));
    const results = await Promise.all([deliverEmail(msg), deliverEmail(msg)]);
    expect(results.sort()).toEqual(['already-sent', 'sent']);
    expect(mailsTo(msg.to)).toHaveLength(1);
  });

  // Fails without the claim pattern: the outbox row stayed locked, in an open transaction on a
  // pooled connection, for as long as the mail server took to answer.
  it('holds no row lock and no open transaction while the mail server answers', async () => {
    const msg = message(unique('claim'));
    let release!: () => void;
    const reached = new Promise<void>((resolve) => {
      hold = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const delivery = deliverEmail(msg);
    await reached; // the message is at the server, which has not answered yet
    try {
      const [row] = await sql.begin(
        (tx) => tx<{ claimed: boolean; sentAt: Date | null }[]>`
          SELECT claimed_at IS NOT NULL AS claimed, sent_at AS "sentAt" FROM email_outbox
          WHERE message_key = ${msg.messageKey} FOR UPDATE NOWAIT`,
      );
      expect(row).toEqual({ claimed: true, sentAt: null });
      const [open] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
      expect(open!.n).toBe(0);
    } finally {
      release();
    }
    expect(await delivery).toBe('sent');
    const [row] = await sql<{ sentAt: Date | null; claimToken: string | null }[]>`
      SELECT sent_at AS "sentAt", claim_token AS "claimToken" FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(row!.sentAt).not.toBeNull();
    expect(row!.claimToken).toBeNull();
    expect(mailsTo(msg.to)).toHaveLength(1);
  });

  it('takes over the claim of an attempt that died mid-send (older than the lease)', async () => {
    const msg = message(unique('stale'));
    const { subject, text, html } = await renderEmail(msg);
    await sql`INSERT INTO email_outbox (message_key, to_address, subject, text_body, html_body, transport, claimed_at, claim_token)
              VALUES (${msg.messageKey}, ${msg.to}, ${subject}, ${text}, ${html}, 'smtp', now() - interval '1 hour', gen_random_uuid())`;
    expect(await deliverEmail(msg)).toBe('sent');
    expect(mailsTo(msg.to)).toHaveLength(1);
  });

  it('a fresh claim of another attempt is waited for, not duplicated', async () => {
    const msg = message(unique('fresh'));
    const { subject, text, html } = await renderEmail(msg);
    await sql`INSERT INTO email_outbox (message_key, to_address, subject, text_body, html_body, transport, claimed_at, claim_token)
              VALUES (${msg.messageKey}, ${msg.to}, ${subject}, ${text}, ${html}, 'smtp', now(), gen_random_uuid())`;
    await expect(deliverEmail(msg, { waitMs: 300 })).rejects.toThrow(/another attempt/);
    expect(mailsTo(msg.to)).toHaveLength(0);
  });

  it('a batch with one refused message completes the others and retries only that one', async () => {
    const good = message(unique('batch-ok'));
    const bad = message(unique('batch-bad'));
    // The next message the server sees is refused: send the bad one alone first, then both by job.
    refuseNext = true;
    await expect(deliverEmail(bad)).rejects.toThrow();
    await enqueue('send-email', good);
    await waitFor(() => mailsTo(good.to).length === 1, 'the good message');
    await enqueue('send-email', bad);
    await waitFor(() => mailsTo(bad.to).length === 1, 'the refused message, sent by a later attempt');
    expect(mailsTo(good.to)).toHaveLength(1);
  });

  it('a refused delivery throws (so the job retries) and the retry sends it', async () => {
    const msg = message(unique('retry'));
    refuseNext = true;
    await expect(deliverEmail(msg)).rejects.toThrow();
    const [row] = await sql<{ sentAt: Date | null }[]>`SELECT sent_at AS "sentAt" FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(row?.sentAt ?? null).toBeNull();
    expect(await deliverEmail(msg)).toBe('sent');
    expect(mailsTo(msg.to)).toHaveLength(1);
  });
});

describe('without SMTP_URL', () => {
  beforeAll(() => useSmtp(undefined));
  afterAll(() => useSmtp(smtpUrl));

  it('keeps the message in email_outbox and logs its link', async () => {
    const info = vi.spyOn(getLogger(), 'info');
    const msg = message(unique('outbox'));
    const before = received.length;
    expect(await deliverEmail(msg)).toBe('outbox');
    expect(received.length).toBe(before);
    const [row] = await sql<{ transport: string; subject: string; textBody: string; sentAt: Date | null }[]>`
      SELECT transport, subject, text_body AS "textBody", sent_at AS "sentAt" FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(row!.transport).toBe('outbox');
    expect(row!.subject).toBe('Set your Postforge password');
    expect(row!.textBody).toContain(msg.params.link);
    expect(row!.sentAt).not.toBeNull();
    const logged = info.mock.calls.find(
      ([obj]) => typeof obj === 'object' && obj !== null && (obj as { link?: string }).link === msg.params.link,
    );
    expect(logged).toBeTruthy();
    expect(logged![0]).toMatchObject({ to: msg.to, subject: 'Set your Postforge password' });
    // Delivered once: a second attempt neither duplicates the row nor logs again.
    info.mockClear();
    expect(await deliverEmail(msg)).toBe('already-sent');
    expect(info).not.toHaveBeenCalled();
    const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(count!.n).toBe(1);
    info.mockRestore();
  });

  it('writes the message in the recipient language', async () => {
    const msg = { ...message(unique('zh')), language: 'zh-HK' as const };
    await deliverEmail(msg);
    const [row] = await sql<{ subject: string }[]>`SELECT subject FROM email_outbox WHERE message_key = ${msg.messageKey}`;
    expect(row!.subject).not.toBe('Set your Postforge password');
    expect(row!.subject).toMatch(/[\u4e00-\u9fff]/);
  });
});
