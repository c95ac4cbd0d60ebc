import crypto from 'node:crypto';
import { createMemorySessionStorage, type AppLoadContext } from '@remix-run/node';
import { Authenticator, AuthorizationError } from 'remix-auth';
import { FormStrategy } from 'remix-auth-form';
import { verifyCredentials } from '~/services/auth.server';
import { firstLimited, hit, pairSubject, peek, refund, reset, type LimitState } from '~/services/rate-limit.server';
import { createSession, type SessionUser } from '~/services/sessions.server';

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
  { kind: 'success'; user: SessionUser; setCookie: string } | { kind: 'invalid' } | { kind: 'limited'; state: LimitState };

/**
 * Signs in with e-mail and password (already validated by the caller's schema) from a client (its
 * key from clientKey()), within the abuse limits (see LIMITS): failures count per (address, client),
 * per client, and per address as a brake that never blocks the right password from a new client.
 * On success a new session starts; the caller ends the request's old one.
 */
export async function login(credentials: { email: string; password: string }, client: string): Promise<LoginOutcome> {
  const email = credentials.email.trim();
  const pair = pairSubject(email, client);
  // Count the attempt before checking it (so parallel guesses cannot slip past the limit), and give
  // it back if it succeeds: in effect only failures count.
  const [pairState, clientState, emailState] = await Promise.all([
    hit('loginPair', pair),
    hit('loginIp', client),
    peek('loginEmail', email),
  ]);
  let limited = firstLimited([pairState, clientState]);
  // A braked address: each client gets one failure an hour for it (the right password still passes).
  const braked = emailState.limited;
  if (!limited && braked) limited = firstLimited([await hit('loginPairBraked', pair)]);
  if (limited) return { kind: 'limited', state: limited };

  const formData = new FormData();
  formData.set('email', email);
  formData.set('password', credentials.password);
  let user: SessionUser;
  try {
    // remix-auth wants a Request; the strategy reads the form from the context instead.
    user = await authenticator.authenticate('form', new Request('http://login.invalid/', { method: 'POST' }), {
      throwOnError: true,
      context: { formData } as unknown as AppLoadContext,
    });
  } catch (error) {
    if (!(error instanceof AuthorizationError)) throw error;
    await hit('loginEmail', email);
    return { kind: 'invalid' };
  }
  await Promise.all([reset('loginPair', pair), refund('loginIp', client), ...(braked ? [refund('loginPairBraked', pair)] : [])]);
  const { setCookie } = await createSession(user.id);
  return { kind: 'success', user, setCookie };
}
