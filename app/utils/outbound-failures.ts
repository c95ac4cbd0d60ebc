// Why a call to a host a user gave us (a WordPress site, a webhook endpoint) failed or was refused,
// as the codes services/outbound.server.ts throws and webhook deliveries and publications store.
// Here rather than with the guard so pages can explain a stored code without the server module.

export const OUTBOUND_FAILURES = [
  'blocked_address',
  'bad_url',
  'bad_scheme',
  'dns',
  'refused',
  'timeout',
  'tls',
  'network',
  'too_large',
  'too_many_redirects',
] as const;

export type OutboundFailure = (typeof OUTBOUND_FAILURES)[number];
