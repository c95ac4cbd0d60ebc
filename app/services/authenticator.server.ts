import crypto from 'node:crypto';
import { createMemorySessionStorage, type AppLoadContext } from '@remix-run/node';
import { Authenticator, AuthorizationError } from 'remix-auth';
import { FormStrategy } from 'remix-auth-form';
import { verifyCredentials } from '~/services/auth.server';
import { clientIpOf, firstLimited, hit, refund, reset, type LimitState } from '~/services/rate-limit.server';
import { createSession, destroySession, type SessionUser } from '~/services/sessions.server';

// remix-auth checks the credentials; the session itself is ours (a Postgres row, see
// sessions.server.ts), so the authenticator never redirects and its session storage stays unused.
const unusedStorage = createMemorySessionStorage({
  cookie: { name: '__auth_unused', secrets: [crypto.randomBytes(16).toString('hex')] },
});
const authenticator = new Authenticator<SessionUser>(unusedStorage, { throwOnError: true });

authenticator.use(
  new FormStrategy(async ({ form }) => {
    const email = form.get('email');
    const password = form.get('password');
    if (typeof email !== 'string' || typeof password !== 'string') throw new AuthorizationError('invalid');
    const user = await verifyCredentials(email, password);
    if (!user) throw new AuthorizationError('invalid');
    return user;
  }),
  'form',
);

export type LoginOutcome =
  | { kind: 'success'; user: SessionUser; setCookie: string }
  | { kind: 'invalid' }
  | { kind: 'limited'; state: LimitState };

/**
 * Signs in with e-mail and password (already validated by the caller's schema), within the abuse
 * limits: failed attempts count per e-mail and per client address. On success the request's old
 * session (if any) ends and a new one starts.
 */
export async function login(
  request: Request,
  context: AppLoadContext,
  credentials: { email: string; password: string },
): Promise<LoginOutcome> {
  const ip = clientIpOf(context as { clientIp?: string });
  const email = credentials.email.trim();
  // Count the attempt before checking it (so parallel guesses cannot slip past the limit), and give
  // it back if it succeeds: in effect only failures count.
  const limited = firstLimited(await Promise.all([hit('loginEmail', email), hit('loginIp', ip)]));
  if (limited) return { kind: 'limited', state: limited };

  const formData = new FormData();
  formData.set('email', email);
  formData.set('password', credentials.password);
  let user: SessionUser;
  try {
    // The body was read already: the strategy reads the form from the context instead.
    user = await authenticator.authenticate('form', new Request(request.url, { method: 'POST' }), {
      throwOnError: true,
      context: { ...context, formData },
    });
  } catch (error) {
    if (!(error instanceof AuthorizationError)) throw error;
    return { kind: 'invalid' };
  }
  await Promise.all([reset('loginEmail', email), refund('loginIp', ip)]);
  await destroySession(request);
  const { setCookie } = await createSession(user.id);
  return { kind: 'success', user, setCookie };
}
