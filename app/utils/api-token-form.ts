import { z } from 'zod';

// The new-token form of the API tokens page: a name and an optional expiry.

export const TOKEN_NAME_MAX = 100;
/** The expiry choices, in days ('' on the form: never). */
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;

export const newTokenSchema = z.object({
  name: z.string().trim().min(1).max(TOKEN_NAME_MAX),
  expiresInDays: z
    .union([z.literal(''), z.enum(TOKEN_EXPIRY_DAYS.map(String) as [string, ...string[]])])
    .optional()
    .transform((v) => (v ? Number(v) : null)),
});
