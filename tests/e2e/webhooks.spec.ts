import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { axeViolations, expect, test } from './fixtures';

// /settings/webhooks in Chromium, with and without JavaScript: a wrong URL is explained, an endpoint
// is added and its secret shown once, "Send test event" reaches a receiver on loopback (the app
// of global-setup allows private hosts) that verifies the signature, and the delivery log says so.

type Hit = { id: string; verified: boolean; type: string };

async function startReceiver(secret: () => string) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(secret()).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      hits.push({ id: String(req.headers['webhook-id']), verified, type: (JSON.parse(body) as { type: string }).type });
      res.writeHead(verified ? 200 : 401).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { hits, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('add an endpoint, copy its secret, send a test event and read the delivery log', async ({ page, jsEnabled, signedIn }) => {
  let secret = '';
  const receiver = await startReceiver(() => secret);
  try {
    await signedIn('Hooks');
    await page.goto('/settings/webhooks');
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expect(page.getByText('No endpoints yet.')).toBeVisible();

    // Nothing chosen, a URL that is not one: both explained, nothing saved.
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.getByText('Enter a valid http(s) URL')).toBeVisible();
    await expect(page.getByText('Choose at least one event')).toBeVisible();

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('A run finished', { exact: false }).check();
    await page.getByLabel('A result failed', { exact: false }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const box = page.getByTestId('webhook-secret');
    await expect(box).toBeVisible();
    secret = await box.getByRole('textbox').inputValue();
    expect(secret).toMatch(/^whsec_/);
    const endpoint = page.getByTestId('webhook-endpoint');
    await expect(endpoint).toContainText(receiver.url);
    await expect(endpoint).toContainText('run.completed');

    await endpoint.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByText('Test event queued')).toBeVisible();
    // The secret is not shown again.
    await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
    await expect.poll(async () => receiver.hits.filter((h) => h.type === 'webhook.test' && h.verified).length, { timeout: 20_000 }).toBe(1);
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId('webhook-log')).toContainText('Delivered', { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByTestId('webhook-log')).toContainText(receiver.hits[0]!.id);
    if (jsEnabled) {
      // No serious or critical axe finding (axe runs in the page: scripts on only).
      const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
  } finally {
    await receiver.close();
  }
});
