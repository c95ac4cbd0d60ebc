import crypto from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { sql, type Db } from '../../db/client';
import { enqueue } from '~/queue/boss';
import type { QueuePayload } from '~/queue/queues';
import { getT } from '~/i18n.server';
import { env } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';

export type EmailMessage = QueuePayload<'send-email'>;

/** Queues a message inside the caller's transaction (`db`): it is sent only if that transaction commits. */
export async function queueEmail(message: EmailMessage, db: Db = sql): Promise<void> {
  await enqueue('send-email', message, { singletonKey: message.messageKey, priority: emailPriority(message.template) }, db);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Subject, plain text and HTML of a message in the recipient's language. */
export async function renderEmail(message: Pick<EmailMessage, 'template' | 'language' | 'params'>) {
  const t = await getT(message.language, 'email');
  const p = message.params;
  const subject = t(`${message.template}.subject`, p);
  const lines = [
    t('greeting', p),
    '',
    t(`${message.template}.body`, p),
    '',
    p.link ?? '',
    '',
    t(`${message.template}.expiry`, p),
    '',
    t('signature'),
  ];
  const text = lines.join('\n');
  const safe = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, escapeHtml(v)]));
  const html = `<!doctype html><html lang="${message.language}"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">
<p>${escapeHtml(t('greeting', p))}</p>
<p>${escapeHtml(t(`${message.template}.body`, p))}</p>
<p><a href="${safe.link ?? ''}" style="display:inline-block;padding:10px 18px;background:#4f46e5;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(t(`${message.template}.button`, p))}</a></p>
<p style="font-size:13px;color:#555">${escapeHtml(t('linkFallback'))}<br><a href="${safe.link ?? ''}">${safe.link ?? ''}</a></p>
<p style="font-size:13px;color:#555">${escapeHtml(t(`${message.template}.expiry`, p))}</p>
<p>${escapeHtml(t('signature'))}</p></body></html>`;
  return { subject, text, html };
}

/** Messages one worker process sends at the same time (and its SMTP connection pool's size). */
export const EMAIL_CONCURRENCY = 8;
/** A claim older than this (the send-email job's expiry) is taken over by the next attempt. */
const CLAIM_LEASE_SECONDS = 120;

/** Password resets are sent before any burst of sign-ups (pg-boss fetches higher priority first). */
export const emailPriority = (template: EmailMessage['template']) => (template === 'reset-password' ? 10 : 0);

let transporter: Transporter | undefined;
function smtp(): Transporter {
  if (!transporter) {
    // A pool of connections reused across messages, unless the operator's URL says otherwise.
    const url = new URL(env.SMTP_URL!);
    if (!url.searchParams.has('pool')) {
      url.searchParams.set('pool', 'true');
      url.searchParams.set('maxConnections', String(EMAIL_CONCURRENCY));
    }
    transporter = nodemailer.createTransport(url.toString());
  }
  return transporter;
}

type Claim = { claimed: true; token: string } | { claimed: false; sent: boolean };

/** Takes the message for this attempt in one statement (its own short transaction). */
async function claim(
  message: EmailMessage,
  rendered: { subject: string; text: string; html: string },
  transport: string,
  db: Db,
): Promise<Claim> {
  const token = crypto.randomUUID();
  const [row] = await db<{ token: string }[]>`
    INSERT INTO email_outbox (message_key, to_address, subject, text_body, html_body, transport, claimed_at, claim_token)
    VALUES (${message.messageKey}, ${message.to}, ${rendered.subject}, ${rendered.text}, ${rendered.html}, ${transport}, now(), ${token})
    ON CONFLICT (message_key) DO UPDATE SET transport = EXCLUDED.transport, claimed_at = now(), claim_token = EXCLUDED.claim_token
      WHERE email_outbox.sent_at IS NULL
        AND (email_outbox.claimed_at IS NULL OR email_outbox.claimed_at < now() - make_interval(secs => ${CLAIM_LEASE_SECONDS}))
    RETURNING claim_token AS token`;
  if (row) return { claimed: true, token };
  const [current] = await db<
    { sentAt: Date | null }[]
  >`SELECT sent_at AS "sentAt" FROM email_outbox WHERE message_key = ${message.messageKey}`;
  return { claimed: false, sent: Boolean(current?.sentAt) };
}

/**
 * Sends one queued message. Idempotent by messageKey: a retried or duplicated job finds the message
 * already sent and does nothing. Without SMTP_URL the message is kept in the outbox and logged.
 *
 * The transaction rule: claim the message (commit), send it with no connection or lock held, then
 * mark it sent. A delivery that finds the message claimed by another attempt in flight waits for
 * that attempt's outcome: sent (nothing to do), or released after a failure (claim it, send).
 */
export async function deliverEmail(
  message: EmailMessage,
  { waitMs = 30_000 }: { waitMs?: number } = {},
  db: Db = sql,
): Promise<'sent' | 'outbox' | 'already-sent'> {
  const rendered = await renderEmail(message);
  const transport = env.SMTP_URL ? 'smtp' : 'outbox';
  const until = Date.now() + waitMs;
  let taken = await claim(message, rendered, transport, db);
  while (!taken.claimed) {
    if (taken.sent) return 'already-sent';
    if (Date.now() > until) throw new Error(`e-mail ${message.messageKey} is being sent by another attempt`);
    await new Promise((r) => setTimeout(r, 50));
    taken = await claim(message, rendered, transport, db);
  }
  const { token } = taken;
  try {
    if (transport === 'smtp') {
      await smtp().sendMail({
        from: env.MAIL_FROM,
        to: message.to,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        messageId: `<${message.messageKey.replace(/[^\w.-]/g, '.')}@postforge>`,
      });
    } else {
      getLogger().info({ to: message.to, subject: rendered.subject, link: message.params.link }, 'e-mail kept in outbox (no SMTP_URL)');
    }
  } catch (err) {
    // Release the claim so that the job's retry (or a waiting attempt) sends it.
    await db`UPDATE email_outbox SET claimed_at = NULL, claim_token = NULL WHERE message_key = ${message.messageKey} AND claim_token = ${token}`;
    throw err;
  }
  await db`UPDATE email_outbox SET sent_at = now(), claimed_at = NULL, claim_token = NULL
            WHERE message_key = ${message.messageKey} AND claim_token = ${token}`;
  return transport === 'smtp' ? 'sent' : 'outbox';
}
