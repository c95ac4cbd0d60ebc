import '@remix-run/server-runtime';

declare module '@remix-run/server-runtime' {
  interface AppLoadContext {
    cspNonce: string;
    /** The client's address: the socket's, or X-Forwarded-For's when TRUST_PROXY is set (Express req.ip). */
    clientIp: string;
  }
}
