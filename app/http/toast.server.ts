import crypto from 'node:crypto';
import { createCookie, redirect } from '@remix-run/node';
import { z } from 'zod';
import { env } from '~/runtime/env.server';

// Toasts cross redirects in a signed flash cookie, so they show without JavaScript too.
const toastSchema = z.object({
  id: z.string(),
  type: z.enum(['success', 'error', 'info']),
  title: z.string(),
  description: z.string().optional(),
});
export type Toast = z.infer<typeof toastSchema>;
export type ToastInput = Omit<Toast, 'id'>;

let cookie: ReturnType<typeof createCookie> | undefined;
function toastCookie() {
  cookie ??= createCookie('toast', {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: env.NODE_ENV === 'production' && env.APP_URL.startsWith('https:'),
    secrets: [env.SESSION_SECRET],
  });
  return cookie;
}

export async function toastHeader(toast: ToastInput): Promise<string> {
  return toastCookie().serialize({ id: crypto.randomUUID(), ...toast });
}

/** A redirect that shows one toast on the next page. Extra Set-Cookie headers may ride along. */
export async function redirectWithToast(url: string, toast: ToastInput, init: ResponseInit = {}) {
  const headers = new Headers(init.headers);
  headers.append('Set-Cookie', await toastHeader(toast));
  return redirect(url, { ...init, headers });
}

/** The pending toast (if any) and the Set-Cookie that consumes it. */
export async function getToast(request: Request): Promise<{ toast: Toast | null; setCookie?: string }> {
  const header = request.headers.get('Cookie');
  if (!header || !header.includes('toast=')) return { toast: null };
  const parsed = toastSchema.safeParse(await toastCookie().parse(header));
  return {
    toast: parsed.success ? parsed.data : null,
    setCookie: await toastCookie().serialize('', { maxAge: 0, expires: new Date(0) }),
  };
}
