import { z } from 'zod';

// The account forms' schemas, shared by the pages (client and server, through Conform) and the JSON
// API. Built from a translator so messages come out in the reader's language on both sides.
export type Translate = (key: string, options?: Record<string, unknown>) => string;

const email = (t: Translate) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ required_error: t('validation.emailInvalid'), invalid_type_error: t('validation.emailInvalid') })
      .max(254, t('validation.emailInvalid'))
      .email(t('validation.emailInvalid')),
  );

const password = (t: Translate) =>
  z
    .string({ required_error: t('validation.passwordMin'), invalid_type_error: t('validation.passwordMin') })
    .min(6, t('validation.passwordMin'))
    // argon2 copes with any length; this only keeps absurd bodies from costing CPU.
    .max(256, t('validation.passwordMax'));

export const loginSchema = (t: Translate) =>
  z.object({
    email: email(t),
    password: password(t),
    redirectTo: z.string().optional(),
  });

export const registerSchema = (t: Translate) =>
  z.object({
    name: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim() : v),
      z
        .string({ required_error: t('validation.nameMin'), invalid_type_error: t('validation.nameMin') })
        .min(2, t('validation.nameMin'))
        .max(100, t('validation.nameMax'))
        // Control characters (a NUL would even break the database write) have no place in a name.
        // eslint-disable-next-line no-control-regex
        .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), t('validation.nameInvalid')),
    ),
    email: email(t),
  });

export const forgotPasswordSchema = (t: Translate) => z.object({ email: email(t) });

export const resetPasswordSchema = (t: Translate) =>
  z
    .object({
      password: password(t),
      confirmPassword: z.string({ required_error: t('validation.passwordsDontMatch') }),
      token: z
        .string({ required_error: t('errors.invalidResetParams') })
        .min(1, t('errors.invalidResetParams'))
        .max(200),
      email: email(t),
    })
    .refine((v) => v.password === v.confirmPassword, {
      message: t('validation.passwordsDontMatch'),
      path: ['confirmPassword'],
    });
