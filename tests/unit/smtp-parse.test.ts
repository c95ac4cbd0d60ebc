import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { parseEmail } from '../support/smtp-server';

// The test mailbox reads what nodemailer writes: encoded-word headers, multipart bodies,
// quoted-printable and base64 transfer encodings, non-ASCII text.
async function raw(message: nodemailer.SendMailOptions): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = await transport.sendMail(message);
  return info.message as Buffer;
}

describe('test mailbox parsing', () => {
  it('decodes subject, addresses, text and HTML of a multipart message in Traditional Chinese', async () => {
    const link = 'http://localhost:3000/reset-password?token=abc123&email=user%40example.com';
    const parsed = await parseEmail(
      await raw({
        from: 'Postforge <no-reply@postforge.local>',
        to: '陳大文 <tai-man@example.com>',
        subject: '設定你的 Postforge 密碼',
        text: `請打開這個連結：\n${link}\n${'長'.repeat(200)}`,
        html: `<p>請打開<a href="${link}">這個連結</a></p>`,
        textEncoding: 'quoted-printable',
      }),
    );
    expect(parsed.subject).toBe('設定你的 Postforge 密碼');
    expect(parsed.from).toBe('Postforge <no-reply@postforge.local>');
    expect(parsed.headerTo).toContain('tai-man@example.com');
    expect(parsed.headerTo).toContain('陳大文');
    expect(parsed.text).toContain(link);
    expect(parsed.text).toContain('長'.repeat(200));
    expect(parsed.html).toContain(`href="${link}"`);
  });

  it('decodes a base64 body', async () => {
    const parsed = await parseEmail(
      await raw({ from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'Grüße – ok', textEncoding: 'base64' }),
    );
    expect(parsed.text.trim()).toBe('Grüße – ok');
    expect(parsed.html).toBe('');
  });
});
