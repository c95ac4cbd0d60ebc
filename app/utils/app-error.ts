// The one error type services throw for a refusal the user should read: what happened (`domain` + `code`), the message's key in the domain's locale namespace and its
// values. It says nothing about HTTP: the edge (app/http/errors.server.ts) alone maps each code to
// a status and translates the key in the request's language.

/**
 * The domains that throw AppErrors; each one's messages live in the locale namespace of that name
 * (`tokens`: API tokens; `developer`: webhooks and the outbound guard they share with WordPress).
 */
export type ErrorDomain = 'generation' | 'billing' | 'wordpress' | 'inputs' | 'tokens' | 'developer';

export type ErrorParams = Record<string, string | number>;

export class AppError<D extends ErrorDomain = ErrorDomain, C extends string = string> extends Error {
  constructor(
    readonly domain: D,
    readonly code: C,
    /** The message's key in the `domain` namespace. */
    readonly key: string,
    /** The English text (logs, and the `message` of a stack trace); users read `key` translated. */
    message: string,
    readonly params: ErrorParams = {},
    /** The form field the refusal is about, when there is one (JSON answers list it under `fields`). */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
