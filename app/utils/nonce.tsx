import { createContext, useContext } from 'react';

// The per-request CSP nonce, provided by entry.server and read by <Scripts> and inline scripts.
const NonceContext = createContext<string>('');
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
