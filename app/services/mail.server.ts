import nodemailer, { type Transporter } from 'nodemailer';
import { sql, type TransactionSql } from '../../db/client';
import { enqueue } from '../../jobs/boss';
import type { QueuePayload } from '../../jobs/queues';
import { getT } from '~/i18n.server';
import { env } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';

export type EmailMessage = QueuePayload<'send-email'>;

/** Queues a message inside the caller's transaction: it is sent only if that transaction commits. */
export async function queueEmail(tx: TransactionSql, message: EmailMessage): Promise<void> {
  await enqueue('send-email', message, { singletonKey: message.messageKey }, tx);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Subject, plain text and HTML of a message in the recipient's language. */
export async function renderEmail(message: Pick<EmailMessage, 'template' | 'language' | 'params'>) {
  const t = await getT(message.language, 'email');
  const p = message.params;
  const subject = t(`${message.template}.subject`, p);
  const lines = [t('greeting', p), '', t(`${message.template}.body`, p), '', p.link ?? '', '', t(`${message.template}.expiry`, p), '', t('signature')];
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

let transporter: Transporter | undefined;
function smtp(): Transporter {
  transporter ??= nodemailer.createTransport(env.SMTP_URL!);
  return transporter;
}

/**
 * Sends one queued message. Idempotent by messageKey: a retried or duplicated job finds the message
 * already sent and does nothing. Without SMTP_URL the message is kept in the outbox and logged.
 */
export async function deliverEmail(message: EmailMessage): Promise<'sent' | 'outbox' | 'already-sent'> {
  const { subject, text, html } = await renderEmail(message);
  const transport = env.SMTP_URL ? 'smtp' : 'outbox';
  // The upsert locks the outbox row until this transaction ends, so two jobs delivering the same
  // message at once take turns and the second finds it sent. A failed send rolls back (retry).
  return sql.begin(async (tx) => {
    const [existing] = await tx<{ sentAt: Date | null }[]>`
      INSERT INTO email_outbox (message_key, to_address, subject, text_body, html_body, transport)
      VALUES (${message.messageKey}, ${message.to}, ${subject}, ${text}, ${html}, ${transport})
      ON CONFLICT (message_key) DO UPDATE SET transport = EXCLUDED.transport
      RETURNING sent_at AS "sentAt"`;
    if (existing?.sentAt) return 'already-sent' as const;
    if (transport === 'smtp') {
      await smtp().sendMail({
        from: env.MAIL_FROM,
        to: message.to,
        subject,
        text,
        html,
        messageId: `<${message.messageKey.replace(/[^\w.-]/g, '.')}@postforge>`,
      });
    } else {
      getLogger().info({ to: message.to, subject, link: message.params.link }, 'e-mail kept in outbox (no SMTP_URL)');
    }
    await tx`UPDATE email_outbox SET sent_at = now() WHERE message_key = ${message.messageKey}`;
    return transport === 'smtp' ? ('sent' as const) : ('outbox' as const);
  });
}
